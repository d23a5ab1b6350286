import Foundation
import Sequencer
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport

/// A directory for one test: workflow files, their journal, runs recorded by the CLI or by
/// the library.
struct Workspace {
    let directory: URL
    /// Removes the directory when the last copy of this goes.
    private let files: TemporaryDirectory

    init() throws {
        files = try TemporaryDirectory(prefix: "sequencer-serve")
        directory = files.url
    }

    var journal: String { directory.appendingPathComponent(".sequencer/journal.sqlite").path }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs `sequencer ARGUMENTS` here to its end.
    func sequencer(_ arguments: String...) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await Served.sequencer(arguments, in: directory)
    }

    /// Starts `sequencer ARGUMENTS` here without waiting for it, its output thrown away.
    func start(_ arguments: String...) throws -> Process {
        let process = Process()
        process.executableURL = Served.binary("sequencer")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts `sequencer run` here without waiting for it, and returns once its journal
    /// exists (the run has begun).
    func startRun() async throws -> Process {
        let run = try start("run")
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: journal) {
            try await Task.sleep(for: .milliseconds(50))
        }
        return run
    }

    /// Records a run of `jobs` (name, needs) in the journal through the library, as an app
    /// would, under the workflow name `workflow` (a file with the same jobs gives the page
    /// their needs). Each job takes about a millisecond.
    func recordLibraryRun(workflow: String, jobs: [(name: String, needs: [String])], concurrency: Int = 8) async throws -> RunReport {
        try FileManager.default.createDirectory(atPath: directory.appendingPathComponent(".sequencer").path, withIntermediateDirectories: true)
        let journal = try SQLiteJournal(path: journal)
        var graph = Workflow()
        for job in jobs {
            try graph.add(JobID(job.name), needs: job.needs.map { JobID($0) }) { _ in
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        let recorder = try journal.beginRun(workflow: workflow)
        return try await graph.start(RunOptions(maxConcurrency: concurrency, recorder: recorder)).report()
    }

    /// `jobs` as a workflow file (each job runs `true`), for the page's needs.
    static func workflowText(_ jobs: [(name: String, needs: [String])]) -> String {
        var text = "version: 1\njobs:\n"
        for job in jobs {
            text += "  \"\(job.name)\":\n    run: \"true\"\n"
            if !job.needs.isEmpty { text += "    needs: [" + job.needs.map { "\"\($0)\"" }.joined(separator: ", ") + "]\n" }
        }
        return text
    }
}
