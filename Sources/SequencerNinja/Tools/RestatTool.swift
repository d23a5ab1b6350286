/// `ninja -t restat [OUTPUT...]`: records in `.ninja_log` the current mtime of each output
/// (of those named, when some are); a missing file gets 0. ninja 1.11 runs it before reading
/// the manifest, so it always uses the current directory's `.ninja_log` (not `builddir`'s).
enum RestatTool {
    /// ninja's usage text, printed on standard output for `-h` or an unknown flag.
    static let usage = "usage: ninja -t restat [outputs]\n"

    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        guard let (_, outputs) = invocation.flags(ToolArgumentParser(flags: ["h"]), usage: usage) else { return 1 }
        let printer = invocation.printer
        let path = NinjaBuildLog.fileName
        let loaded: NinjaLogLoad<NinjaBuildLog>
        do {
            loaded = try NinjaBuildLog.load(from: invocation.onDisk(path))
        } catch {
            throw ManifestError("loading build log \(path): \(error.message)")
        }
        // Nothing to restat. (A log deleted for its version is written anew, empty; and then,
        // as in ninja, removing the old one fails.)
        if !loaded.fileExists && loaded.warning == nil { return 0 }
        if let warning = loaded.warning { printer.warning(warning) }
        var log = loaded.log
        let named = Set(outputs)
        var failure: String?
        for entry in log.entriesInNinjaOrder where named.isEmpty || named.contains(entry.output) {
            var updated = entry
            switch ToolDisk.stamp(entry.output, in: invocation.directory) {
            case .modified(let time): updated.mtime = time
            case .missing: updated.mtime = 0
            case .failed(let message):
                failure = message
            }
            if failure != nil { break }
            log.record(updated)
        }
        if let failure { throw ManifestError("failed recompaction: \(failure)") }
        let version = NinjaBuildLog.ninja111Version
        let needsRecompaction = loaded.fileExists && log.needsRecompaction(writingVersion: version)
        do {
            try ToolInvocation.replaceFile(
                invocation.onDisk(path), with: log.encodedInNinjaOrder(version: version), temporarySuffix: ".restat")
        } catch {
            throw ManifestError("failed recompaction: \(error.message)")
        }
        // ninja then opens the log for writing, which recompacts it if loading found it needed
        // to; with no manifest read, every output not on disk is dead.
        if !invocation.options.dryRun && needsRecompaction {
            do {
                let directory = invocation.directory
                try log.recompactAsNinja(at: invocation.onDisk(path), version: version) { output in
                    ToolInvocation.isDeadOutput(output, in: NinjaGraph(), directory: directory, printer: printer)
                }
            } catch {
                throw ManifestError("opening build log: \(error.message)")
            }
        }
        return 0
    }
}
