import Foundation
import Sequencer
import SequencerBuild
import SequencerHistory
import SequencerWorkflowFile

/// The runs of a history as their pages show them: each with its graph, the one the run
/// recorded or, when it has none (a queue's runs, a journal's from before graphs were kept),
/// its workflow file's as it is now.
struct RunViews: Sendable {
    let history: any RunHistory
    /// The workflow file `serve` was given, for a queue's runs of its workflow submitted elsewhere.
    let workflowPath: String?
    let files = WorkflowFiles()

    /// The run `id` as the run page shows it; nil when there is no such run.
    func view(_ id: Int64) async throws -> RunView? {
        guard let record = try await history.run(id) else { return nil }
        if let graph = record.graph { return RunView(record: record, graph: graph, graphRecorded: true, fileProblem: nil) }
        let loaded = file(of: record)
        return RunView(record: record, graph: loaded.file.map { HistoryGraph(file: $0) }, graphRecorded: false, fileProblem: loaded.problem)
    }

    /// The file the run came from, when it is on this machine; else, for a queue's run, the file
    /// `serve` was given when it is of the run's workflow.
    private func file(of record: RunRecord) -> (file: WorkflowFile?, problem: String?) {
        if let path = record.workflowFile { return files.file(at: path) }
        if let workflowPath, history.workflow(ofFile: workflowPath) == record.run.workflow { return files.file(at: workflowPath) }
        return (nil, "the run was submitted from \(record.run.origin ?? "another machine"), which is not on this machine (give its file with -f)")
    }
}

/// The workflow files runs name, each parsed once while it stays the same on disk.
final class WorkflowFiles: Sendable {
    private struct Entry {
        var stamp: [Int64]
        var file: WorkflowFile?
        var problem: String?
    }

    private let cache = Locked<[String: Entry]>([:])

    /// The file at `path` as it is now, or why it cannot be read.
    func file(at path: String) -> (file: WorkflowFile?, problem: String?) {
        let stamp = Self.stamp(path)
        if let entry = cache.withLock({ $0[path] }), entry.stamp == stamp { return (entry.file, entry.problem) }
        let entry: Entry
        do {
            entry = Entry(stamp: stamp, file: try WorkflowFile.load(path: path), problem: nil)
        } catch {
            entry = Entry(stamp: stamp, file: nil, problem: "\(error)")
        }
        cache.withLock { $0[path] = entry }
        return (entry.file, entry.problem)
    }

    private static func stamp(_ path: String) -> [Int64] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        return [Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ino)]
    }
}
