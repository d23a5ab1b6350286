import ArgumentParser
import Foundation
import SequencerRunner
import SequencerNinja
import SequencerWorkflowFile

struct CleanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Delete the declared outputs of a workflow file's jobs, like ninja -t clean.",
        discussion: """
            Deletes the `outputs` of every job, or of the named jobs (or the jobs that make the \
            named outputs) and the jobs they need. A file or a symbolic link is deleted (never \
            what a link points to); a directory only when it is empty; an output that does not \
            exist is skipped. An output that is the workflow file, its directory or a directory \
            above it is refused (exit 2) and nothing is deleted. The journal is kept: the jobs \
            run again next time because their outputs are missing. The file and the targets are \
            read as `sequencer run` reads them (-f FILE, or a first argument ending in .yml). \
            For a ninja manifest (-f build.ninja), it deletes what `sequencer ninja -t clean` does.
            """
    )

    /// The file, and the jobs (or outputs) to clean with the jobs they need.
    @OptionGroup var targets: TargetArguments

    @Flag(name: [.customShort("n"), .customLong("dry-run")], help: "Print what would be deleted, deleting nothing.")
    var dryRun = false

    /// `-f FILE`, or a first argument, naming a ninja manifest (`build.ninja`).
    private var ninjaManifest: String? {
        if let file = targets.file { return file.hasSuffix(".ninja") ? file : nil }
        guard let first = targets.words.first, first.hasSuffix(".ninja"), FileManager.default.fileExists(atPath: first) else { return nil }
        return first
    }

    func run() async throws {
        if let manifest = ninjaManifest {
            // A ninja manifest: what `ninja -t clean` deletes (every output, or the targets').
            let slash = manifest.lastIndex(of: "/")
            let directory = slash.map { String(manifest[..<$0]) }
            let name = slash.map { String(manifest[manifest.index(after: $0)...]) } ?? manifest
            var arguments = (directory.map { ["-C", $0.isEmpty ? "/" : $0] } ?? []) + ["-f", name]
            if dryRun { arguments.append("-n") }
            arguments += ["-t", "clean"] + targets.words.filter { $0 != manifest }
            let code = await NinjaMain.run(arguments: arguments)
            if code != 0 { throw ExitCode(code) }
            return
        }
        let named = targets.named
        try named.checkDefaultFileExists()
        let workflowFile = try selectOrExit(try CompiledWorkflow.load(named.path), named)
        let outputs = try CleanPlan(file: workflowFile)
        var removed: Set<String> = [], failed = 0
        var kept: [String] = []
        // Files first, in file order; then directories, deepest first, so one that holds only
        // outputs is empty by its turn.
        var files: [String] = [], directories: [String] = []
        for path in outputs.paths {
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }  // missing: nothing to clean
            if status.st_mode & S_IFMT == S_IFDIR { directories.append(path) } else { files.append(path) }
        }
        let isDirectory = Set(directories)
        for path in files + directories.sorted(by: { $0.count > $1.count }) {
            let shown = outputs.shown(path)
            let isDirectory = isDirectory.contains(path)
            let entries = isDirectory ? (try? FileManager.default.contentsOfDirectory(atPath: path)) : []
            if entries?.allSatisfy({ removed.contains(path + "/" + $0) }) != true {
                kept.append(shown)
            } else if dryRun {
                print(shown)
                removed.insert(path)
            } else if (isDirectory ? rmdir(path) : unlink(path)) == 0 {
                removed.insert(path)
            } else {
                printError("error: cannot delete \(shown): \(String(cString: strerror(errno)))")
                failed += 1
            }
        }
        let noun = removed.count == 1 ? "output" : "outputs"
        var line = "sequencer: \(dryRun ? "would remove" : "removed") \(removed.count) \(noun)"
        if !kept.isEmpty { line += "; kept \(kept.count) non-empty director\(kept.count == 1 ? "y" : "ies"): " + kept.joined(separator: ", ") }
        print(line)
        if failed > 0 { throw ExitCode(ExitStatus.failed) }
    }
}

/// The outputs `clean` deletes: each declared output once, in file order, as absolute paths,
/// none of them the workflow file or a directory holding it.
struct CleanPlan {
    let paths: [String]
    private let directory: String

    /// - Throws: exit status 2, after printing `FILE:LINE:COLUMN: error: …` (at the job) for
    ///   each output that must not be deleted.
    init(file: WorkflowFile) throws {
        let workflowPath = absolutePath(file.path)
        directory = (workflowPath as NSString).deletingLastPathComponent
        var seen: Set<String> = []
        var paths: [String] = []
        var refused = false
        for job in file.jobs {
            for (declared, path) in zip(job.outputs, file.outputPaths(of: job)) where seen.insert(path).inserted {
                if path == workflowPath || directory == path || directory.hasPrefix(path == "/" ? "/" : path + "/") {
                    let what = path == workflowPath ? "the workflow file" : "the workflow file's directory or holds it"
                    printError(Diagnostic(
                        file: job.definedIn, location: job.location,
                        message: "job '\(job.name)' has output '\(declared)', which is \(what): clean deletes nothing"
                    ).description)
                    refused = true
                }
                paths.append(path)
            }
        }
        if refused { throw ExitCode(ExitStatus.invalid) }
        self.paths = paths
    }

    /// A path as printed: relative to the workflow file's directory when inside it.
    func shown(_ path: String) -> String {
        path.hasPrefix(directory + "/") ? String(path.dropFirst(directory.count + 1)) : path
    }
}
