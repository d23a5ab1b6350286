import Foundation
import Sequencer
public import SequencerHistory

/// A journal as a history: the runs `sequencer run` (and `sequencer ninja`) recorded, their
/// output in files beside it. The journal's packed job log and its resumes stay its own; this
/// reads what they tell.
///
/// Each read is made on a thread of Dispatch's, not on one of Swift's few: SQLite blocks, and a
/// slow disk then delays that read alone.
public final class JournalHistory: RunHistory {
    /// Where the journal is.
    public let path: String
    private let opened: Locked<SQLiteJournal?>
    /// Recorded graphs, decoded once: a live run's page reads its run five times a second.
    private let graphs = RecentValues<String, HistoryGraph>()
    /// The checks of ended runs, by run, session count and end: they change only when the run
    /// is resumed (a new session), and a page of an ended run is read again and again.
    private let endedChecks = RecentValues<String, JournalJobChecks>()

    /// The history of a journal already open (for writing, say: `sequencer runs` upgrades an
    /// older journal as it opens it).
    public init(journal: SQLiteJournal) {
        path = journal.path
        opened = Locked(journal)
    }

    /// The history of the journal at `path`, opened for reading only when first read. Until a
    /// run creates the file, it has no runs: serving a workflow that never ran creates nothing.
    public init(path: String) {
        self.path = path
        opened = Locked(nil)
    }

    /// The journal, once there is one at ``path``; nil before.
    /// - Throws: ``JournalError`` when the file is there but cannot be read as a journal.
    public func journal() throws -> SQLiteJournal? {
        if let journal = opened.withLock({ $0 }) { return journal }
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let journal = try SQLiteJournal(readingOnly: path)
        return opened.withLock { kept in
            if kept == nil { kept = journal }
            return kept
        }
    }

    public var name: String { "journal \(path)" }
    public var states: [RunState] { [.running, .succeeded, .failed, .cancelled, .timedOut, .interrupted] }
    public var resumes: Bool { true }
    public var pollInterval: Duration { .milliseconds(200) }

    /// A journal names a workflow file by its absolute, standard path.
    public func workflow(ofFile path: String) -> String { Self.workflowKey(ofFile: path) }

    /// The name a journal keeps the runs of the workflow file at `path` under: its absolute,
    /// standard path. A run is recorded, and its history read, by this one definition.
    public static func workflowKey(ofFile path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    public func runs(_ query: RunQuery) async throws -> RunsPage {
        try await offThread { [self] in
            guard let journal = try journal() else { return RunsPage(runs: [], total: 0, older: nil, workflows: []) }
            return try Self.page(query, in: journal)
        }
    }

    public func run(_ id: Int64) async throws -> RunRecord? {
        try await offThread { [self] in try journal().flatMap { try record(id, in: $0) } }
    }

    public func summary(of id: Int64) async throws -> HistoryRun? {
        try await offThread { [self] in
            guard let journal = try journal(), let row = try journal.run(id) else { return nil }
            let counts = try journal.jobCounts(of: [id])[id] ?? JournalJobCounts()
            return Self.run(of: row, recording: try journal.recordingRun(), counts: counts)
        }
    }

    public func jobs(of id: Int64) async throws -> [HistoryJob] {
        try await offThread { [self] in try journal()?.jobs(of: id).map(Self.job) ?? [] }
    }

    public func output(of attempt: HistoryAttempt, in record: RunRecord, last limit: Int?) async throws -> AttemptOutput {
        try await offThread { Self.output(of: attempt, last: limit) }
    }

    /// The journal's data version while another process records in it. When none does, nil:
    /// a run that says it runs is read again (its recorder may have died without a write).
    public func version() async throws -> Int? {
        try await offThread { [self] in
            guard let journal = try journal(), journal.isRecordingElsewhere else { return nil }
            return try journal.dataVersion()
        }
    }

    /// SIGINT to the `sequencer` recording the run, as Ctrl-C would.
    public func cancel(_ id: Int64) async throws -> String? {
        guard let run = try await summary(of: id) else { return "there is no run #\(id)" }
        guard run.state == .running, let process = try journal()?.recordingProcess, process > 0 else {
            return "run #\(id) is not running (it is \(run.state))"
        }
        guard kill(process, SIGINT) == 0 else { return "cannot signal process \(process): \(String(cString: strerror(errno)))" }
        return nil
    }

    /// Deletes the ended runs beyond the newest `keep` of each workflow file, with their output
    /// directories, then compacts the journal. It needs a journal open for writing
    /// (``init(journal:)``).
    public func deleteRuns(keeping keep: Int) async throws -> DeletedRuns {
        try await offThread { [self] in
            guard let journal = try journal() else { return DeletedRuns(runs: []) }
            let (runs, directories) = try journal.deleteRunsAndOutput(keeping: keep)
            try journal.compact()
            return DeletedRuns(runs: runs.map(\.id), outputDirectories: directories)
        }
    }

    /// Read here for a caller that checks one job at a time; a run of the whole file reads them
    /// all at once, on a thread of its own while the file loads (`SQLiteJournal.fingerprints`).
    public func fingerprints(workflow: String, jobs: [String]?) async throws -> [String: Fingerprint] {
        try await offThread { [self] in
            guard let all = try journal()?.fingerprints(workflow: workflow) else { return [:] }
            guard let jobs else { return all }
            let wanted = Set(jobs)
            return all.filter { wanted.contains($0.key) }
        }
    }

    // MARK: Reading

    /// The page `query` asks for.
    ///
    /// `interrupted` is a run recorded as running whose recorder is gone: of the runs recorded
    /// as running, only the one being recorded now is running. Both states read those runs and
    /// filter, one more read for the one that may be filtered out.
    static func page(_ query: RunQuery, in journal: SQLiteJournal) throws -> RunsPage {
        let status = query.state == .interrupted ? RunState.running.rawValue : query.state?.rawValue
        let recording = try journal.recordingRun()
        let split = status == "running" && recording != nil
        let rows = try journal.runs(workflow: query.workflow, status: status, before: query.before, limit: query.limit + (split ? 2 : 1))
        let counts = try journal.jobCounts(of: rows.map(\.id))
        var runs = rows.map { run(of: $0, recording: recording, counts: counts[$0.id] ?? JournalJobCounts()) }
        if let state = query.state { runs = runs.filter { $0.state == state } }
        let hasMore = runs.count > query.limit
        runs = Array(runs.prefix(query.limit))
        var total = try journal.runCount(workflow: query.workflow, status: status)
        if status == "running" {
            let recordingCounted = try recording.flatMap { try journal.run($0) }
                .map { $0.status == "running" && (query.workflow == nil || $0.workflow == query.workflow) } ?? false
            let running = recordingCounted ? 1 : 0
            // Two reads: a run that ended or was resumed between them must not make it negative.
            total = query.state == .running ? running : max(0, total - running)
        }
        return RunsPage(runs: runs, total: total, older: hasMore ? runs.last?.id : nil, workflows: try journal.workflows())
    }

    /// A run of the journal in the history's words. `recording`: the run another process
    /// records now; a run that says it is running and is not that one was interrupted.
    static func run(of run: JournalRun, recording: Int64?, counts extra: JournalJobCounts) -> HistoryRun {
        let counts = JobCounts(
            jobs: run.jobCount, succeeded: run.succeeded, upToDate: extra.upToDate, failed: run.failed, timedOut: run.timedOut,
            cancelled: run.cancelled, skipped: max(0, run.skipped - extra.upToDate), retried: extra.retried)
        return HistoryRun(
            id: run.id, workflow: run.workflow, info: run.info, state: state(run.state(recordingRun: recording)),
            startedAt: run.startedAt, endedAt: run.endedAt, sessions: run.sessions, counts: counts)
    }

    static func state(_ text: String) -> RunState { RunState(rawValue: text) ?? .failed }

    static func job(_ job: JournalJob) -> HistoryJob {
        HistoryJob(
            name: job.name, position: job.position, state: JobState(rawValue: job.status) ?? .pending, code: job.code, error: job.error,
            attempts: job.attempts, startedAt: job.startedAt, endedAt: job.endedAt, parent: job.parent)
    }

    static func attempt(_ attempt: JournalAttempt) -> HistoryAttempt {
        HistoryAttempt(
            job: attempt.job, attempt: attempt.attempt, startedAt: attempt.startedAt, endedAt: attempt.endedAt, exit: attempt.exit,
            exitCode: attempt.exitCode, signal: attempt.signal, outputFile: attempt.output)
    }

    func record(_ id: Int64, in journal: SQLiteJournal) throws -> RunRecord? {
        guard let row = try journal.run(id) else { return nil }
        var jobs = try journal.jobs(of: id).map(Self.job)
        // Supplementary: a journal that cannot give its checks has lost only the reasons.
        let recording = try journal.recordingRun()
        let checks: JournalJobChecks? = if let ended = row.endedAt, row.state(recordingRun: recording) != RunState.running.rawValue {
            try? endedChecks.value("\(id) \(row.sessions) \(ended)") { try journal.jobChecks(of: id) }
        } else {
            try? journal.jobChecks(of: id)
        }
        if let checks, !checks.jobs.isEmpty {
            for index in jobs.indices {
                guard let check = checks.jobs[jobs[index].name] else { continue }
                (jobs[index].reason, jobs[index].fingerprint) = (check.reason, check.fingerprint)
            }
        }
        let counts = JournalJobCounts(upToDate: jobs.count { $0.state == .upToDate }, retried: jobs.count { $0.attempts > 1 })
        // The run's own graph; for a run from before the journal kept them, the file's now.
        let graph = try journal.graphDigest(of: row).flatMap { digest in try graphs.value(digest) { try journal.graph(digest: digest) } }
        return RunRecord(
            run: Self.run(of: row, recording: recording, counts: counts), names: try journal.jobNames(of: id),
            jobs: jobs, attempts: try journal.attempts(of: id).map(Self.attempt), graph: graph, workflowFile: row.workflow,
            checked: checks?.checked)
    }

    private static func output(of attempt: HistoryAttempt, last limit: Int?) -> AttemptOutput {
        guard let path = attempt.outputFile else { return .nothing }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .gone("The output is gone: \(path) (sequencer gc deletes old runs' output).")
        }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        let start = limit.map { size > UInt64($0) ? size - UInt64($0) : 0 } ?? 0
        try? handle.seek(toOffset: start)
        return .bytes((try? handle.readToEnd()) ?? Data(), size: Int(size))
    }
}

/// Values read from the journal that never change once read (a graph, by its digest; an ended
/// run's checks), kept for the last 16 keys.
final class RecentValues<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries = Locked<[(key: Key, value: Value)]>([])

    /// The value for `key`, read by `read` when it is not kept (and kept unless nil).
    func value(_ key: Key, read: () throws -> Value?) rethrows -> Value? {
        if let found = entries.withLock({ $0.first { $0.key == key }?.value }) { return found }
        guard let value = try read() else { return nil }
        entries.withLock { entries in
            entries.insert((key, value), at: 0)
            if entries.count > 16 { entries.removeLast() }
        }
        return value
    }
}

/// `work`'s value, computed on a thread of its own: for reads that block (SQLite waiting for its
/// lock, files).
///
/// Not on Dispatch's shared threads: on Linux, Swift's tasks run on those same threads, and
/// Dispatch adds threads for blocked ones only up to twice the processor count, so a few slow
/// reads at once would stall every task of the process (the web page's server with them).
package func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
