import Foundation
import Sequencer
import SequencerBuild
public import SequencerJournal
import SequencerWorkflowFile

/// What the page reads: the journal, opened for reading only, and the workflow files its runs
/// name (for needs, lanes and commands, which the journal does not keep).
public final class RunHistory: Sendable {
    public let journal: SQLiteJournal
    private let files = WorkflowFiles()
    /// Recorded graphs, decoded once: a live run's page reads its run five times a second.
    private let graphs = GraphCache()

    /// - Throws: ``JournalError`` when the journal cannot be read (see
    ///   ``SQLiteJournal/init(readingOnly:)``).
    public init(journalPath: String) throws {
        journal = try SQLiteJournal(readingOnly: journalPath)
    }

    /// What the runs page shows.
    public struct RunsPage: Sendable {
        public var runs: [RunSummary]
        /// How many runs match the filters, on every page.
        public var total: Int
        /// The `before` of the next (older) page; nil on the last.
        public var older: Int64?
        public var workflows: [String]
    }

    /// A run with its state as a reader tells it and the counts its row lacks.
    public struct RunSummary: Sendable, Encodable {
        public let run: JournalRun
        /// `running`, `interrupted` (its process died), or how it ended.
        public let state: String
        /// Up-to-date and retried jobs; nil when the source does not count them (a queue).
        public let counts: JournalJobCounts?

        /// Jobs that ran a command, whatever became of it.
        public var ran: Int { run.succeeded + run.failed + run.cancelled + run.timedOut }
        public var failed: Int { run.failed + run.timedOut }
    }

    /// The page of runs after `before` (newest first) matching the filters, read on the calling
    /// thread (``runsPage(workflow:state:before:limit:)`` reads on another).
    func readRunsPage(workflow: String?, state: String?, before: Int64?, limit: Int) throws -> RunsPage {
        // `interrupted` is a run recorded as running whose recorder is gone: of the runs
        // recorded as running, only the one being recorded now is running. Both states read
        // those runs and filter, one more read for the one that may be filtered out.
        let status = state == "interrupted" ? "running" : state
        let recording = try recordingRun()
        let split = status == "running" && recording != nil
        let runs = try journal.runs(workflow: workflow, status: status, before: before, limit: limit + (split ? 2 : 1))
        let counts = try journal.jobCounts(of: runs.map(\.id))
        var summaries = runs.map { run in
            RunSummary(run: run, state: Self.state(of: run, recording: recording), counts: counts[run.id] ?? JournalJobCounts())
        }
        if let state { summaries = summaries.filter { $0.state == state } }
        let hasMore = summaries.count > limit
        summaries = Array(summaries.prefix(limit))
        var total = try journal.runCount(workflow: workflow, status: status)
        if status == "running" {
            let recordingCounted = try recording.flatMap { try journal.run($0) }
                .map { $0.status == "running" && (workflow == nil || $0.workflow == workflow) } ?? false
            let running = recordingCounted ? 1 : 0
            // Two reads: a run that ended or was resumed between them must not make it negative.
            total = state == "running" ? running : max(0, total - running)
        }
        return RunsPage(
            runs: summaries, total: total, older: hasMore ? summaries.last?.run.id : nil, workflows: try journal.workflows())
    }

    /// The run being recorded now by another process (see ``SQLiteJournal/recordingRun()``).
    func recordingRun() throws -> Int64? {
        try journal.recordingRun()
    }

    static func state(of run: JournalRun, recording: Int64?) -> String {
        run.state(recordingRun: recording)
    }

    /// The run `id` as the run page shows it, read on the calling thread (``run(_:)`` reads on
    /// another); nil when there is no such run.
    func readRun(_ id: Int64) throws -> RunView? {
        guard let run = try journal.run(id) else { return nil }
        let names = try journal.jobNames(of: id)
        let jobs = try journal.jobs(of: id)
        let attempts = try journal.attempts(of: id)
        let state = Self.state(of: run, recording: try recordingRun())
        // The run's own graph; for a run from before the journal kept them, the file's now.
        let recorded = try journal.graphDigest(of: run).flatMap { digest in try graphs.graph(digest) { try journal.graph(digest: digest) } }
        let loaded: (file: WorkflowFile?, problem: String?) = recorded == nil ? files.file(at: run.workflow) : (nil, nil)
        let graph = recorded ?? loaded.file.map { JournalGraph(file: $0) }
        let critical = graph.map { graph in
            RecordedCriticalPath.steps(jobs: jobs, graph: graph, runStart: run.startedAt).map(\.job.rawValue)
        } ?? []
        return RunView(
            run: run, state: state, names: names, jobs: jobs, attempts: attempts, graph: graph, graphRecorded: recorded != nil,
            fileProblem: loaded.problem, critical: critical)
    }
}

/// Graphs decoded from the journal, by digest (a digest names one graph for ever); the last 16.
final class GraphCache: Sendable {
    private let cache = Locked<[(digest: String, graph: JournalGraph)]>([])

    func graph(_ digest: String, read: () throws -> JournalGraph?) rethrows -> JournalGraph? {
        if let found = cache.withLock({ $0.first { $0.digest == digest }?.graph }) { return found }
        guard let graph = try read() else { return nil }
        cache.withLock { entries in
            entries.insert((digest, graph), at: 0)
            if entries.count > 16 { entries.removeLast() }
        }
        return graph
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
