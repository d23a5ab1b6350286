/// Removing built files as ninja's `Cleaner` does: each path once, counted when it was there;
/// with `-n` (dry run) only counted; listed as `Remove PATH` with `-v` or `-n`; between
/// `Cleaning...` and `N files.`.
struct Cleaner {
    private let printer: ToolPrinter
    private let dryRun: Bool
    /// The directory relative paths are relative to (nil: the current one).
    private let directory: String?
    /// `-v` or `-n`: name each file removed.
    private let isVerbose: Bool
    private var removed = Set<String>()
    private var cleanedCount = 0
    /// 1 once a removal failed.
    private(set) var status: Int32 = 0

    init(printer: ToolPrinter, options: NinjaOptions, directory: String?) {
        self.printer = printer
        self.directory = directory
        dryRun = options.dryRun
        isVerbose = options.verbosity == .verbose || options.dryRun
    }

    /// Marks the run failed (an unknown target or rule).
    mutating func fail(_ message: String) {
        printer.error(message)
        status = 1
    }

    /// `Cleaning...` and a space, or a newline when verbose; written at once, as ninja flushes it.
    func printHeader() {
        printer.print(isVerbose ? "Cleaning...\n" : "Cleaning... ")
        printer.flush()
    }

    /// `N files.`: how many were (or, in a dry run, would be) removed.
    func printFooter() {
        printer.print("\(cleanedCount) files.\n")
    }

    /// Prints `line` when verbose.
    func note(_ line: String) {
        if isVerbose { printer.print(line + "\n") }
    }

    /// Removes `path` unless it was removed already.
    mutating func remove(_ path: String) {
        guard removed.insert(path).inserted else { return }
        if dryRun {
            let stamp = ToolDisk.stamp(path, in: directory)
            if case .failed(let message) = stamp { printer.error(message) }
            if stamp.timeStamp > 0 { report(path) }
            return
        }
        switch ToolDisk.remove(path, in: directory) {
        case .removed: report(path)
        case .missing: break
        case .failed(let message):
            printer.error(message)
            status = 1
        }
    }

    /// Removes the edge's depfile and response file, if it has them.
    mutating func removeFiles(of edge: NinjaGraph.EdgeID, in graph: NinjaGraph) throws(ManifestError) {
        let depfile = try graph.depfile(of: edge)
        if !depfile.isEmpty { remove(depfile) }
        let responseFile = try graph.rspfile(of: edge)
        if !responseFile.isEmpty { remove(responseFile) }
    }

    /// Counts a file removed, naming it when verbose.
    private mutating func report(_ path: String) {
        cleanedCount += 1
        note("Remove \(path)")
    }
}
