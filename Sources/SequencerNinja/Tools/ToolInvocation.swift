/// One run of a tool: what it reads and changes, and where its output goes.
struct ToolInvocation {
    /// The manifest; loading dyndep files and the deps log adds to it, as to ninja's state.
    var graph: NinjaGraph
    let options: NinjaOptions
    /// What follows `-t TOOL`.
    let arguments: [String]
    /// The word getopt's complaints start with.
    let commandName: String
    /// `builddir` ("" for the current directory).
    let buildDirectory: String
    /// The directory relative paths are relative to (nil: the current one).
    let directory: String?
    /// Where dyndep files are read from.
    let manifestFiles: any ManifestFiles & Sendable
    let printer: ToolPrinter
    /// The logs, once `openLogs()` has read them (empty before).
    var buildLog = NinjaBuildLog()
    var depsLog = NinjaDepsLog()

    init(context: NinjaToolContext, printer: ToolPrinter) {
        graph = context.graph
        options = context.options
        arguments = context.arguments
        commandName = context.commandName
        buildDirectory = context.buildDirectory
        directory = context.directory
        manifestFiles = context.manifestFiles
        self.printer = printer
    }

    /// A file of the build directory, as ninja names it.
    func inBuildDirectory(_ name: String) -> String {
        buildDirectory.isEmpty ? name : buildDirectory + "/" + name
    }

    /// Where `path` is for the system: under `directory` when it is relative.
    func onDisk(_ path: String) -> String { ToolDisk.resolve(path, in: directory) }

    /// Reads the tool's flags; on an unknown flag or `-h`, prints getopt's complaint and
    /// `usage` (on standard output, as ninja does) and gives nil: the tool then exits with 1.
    func flags(_ parser: ToolArgumentParser, usage: String) -> (flags: [Character], operands: [String])? {
        let result = parser.parse(arguments, commandName: commandName)
        var flags: [Character] = []
        for item in result.items {
            switch item {
            case .flag("h"):
                printer.print(usage)
                return nil
            case .flag(let flag):
                flags.append(flag)
            case .invalid(let complaint):
                printer.standardError(complaint)
                printer.print(usage)
                return nil
            }
        }
        return (flags, result.operands)
    }

    /// Loads `edge`'s dyndep file if it has one not loaded yet, warning of a failure as ninja's
    /// `query` and `graph` do.
    mutating func loadPendingDyndep(of edge: NinjaGraph.EdgeID) {
        Self.loadPendingDyndep(of: edge, in: &graph, files: manifestFiles, printer: printer)
    }

    /// `loadPendingDyndep(of:)` on a graph taken out of the invocation.
    static func loadPendingDyndep(
        of edge: NinjaGraph.EdgeID, in graph: inout NinjaGraph, files: any ManifestFiles, printer: ToolPrinter
    ) {
        guard let dyndep = graph.edges[Int(edge)].dyndep, graph.nodes[Int(dyndep)].dyndepPending else { return }
        do {
            _ = try graph.load(dyndep: dyndep, files: files)
        } catch {
            // ninja's message ends with a newline of its own.
            printer.warning(error.message + "\n")
        }
    }
}
