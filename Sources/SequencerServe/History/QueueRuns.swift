import Foundation
import SequencerBuild
public import SequencerJournal
import SequencerPostgres
public import SequencerQueue
import SequencerWorkflowFile

/// A durable queue as the pages' source: the runs `sequencer run --queue` submitted, read from
/// the queue's database (an SQLite file, or PostgreSQL, where workers on other machines write
/// them). Needs, lanes and commands come from the workflow file a run was submitted from, as it
/// is now, when this machine can read it.
public final class QueueRuns: RunSource {
    public let store: any RunStore
    /// The location, as it may be shown (a URL's password masked).
    public let location: String
    /// The workflow file `serve` was given, for runs of its workflow submitted elsewhere.
    private let workflowPath: String?
    private let files = WorkflowFiles()

    public init(store: any RunStore, location: String, workflowPath: String?) {
        self.store = store
        self.location = PostgresURL.mask(location)
        self.workflowPath = workflowPath
    }

    /// The queue at `location` (an SQLite file, `sqlite:PATH`, or a PostgreSQL URL); a missing
    /// file is an error, not a new queue.
    /// - Throws: ``QueueError`` when it cannot be opened.
    public static func open(location: String, workflowPath: String?) async throws -> QueueRuns {
        QueueRuns(store: try await RunStoreLocation.open(location, create: false), location: location, workflowPath: workflowPath)
    }

    public var name: String { "queue \(location)" }
    public var states: [String] { ["running", "succeeded", "failed", "cancelled"] }
    public var resumes: Bool { false }
    /// A queue cannot say cheaply whether a run changed: a running run is read twice a second.
    public var pollInterval: Duration { .milliseconds(500) }
    public func version() async throws -> Int? { nil }

    /// The most pages of runs read to fill one page of a state (which follows from each run's
    /// jobs, so it is filtered after reading).
    static let filteredReads = 20

    public func runsPage(workflow: String?, state: String?, before: Int64?, limit: Int) async throws -> RunHistory.RunsPage {
        var shown: [QueueRun] = []
        var cursor = before.map { QueueRunID($0) }
        var older: Int64?
        for _ in 0..<(state == nil ? 1 : Self.filteredReads) {
            let batch = try await store.runs(workflow: workflow, before: cursor, limit: state == nil ? limit + 1 : 200)
            shown += batch.filter { state == nil || $0.state.rawValue == state }
            if shown.count > limit {
                shown = Array(shown.prefix(limit))
                older = shown.last?.id.rawValue
                break
            }
            guard let last = batch.last, batch.count == (state == nil ? limit + 1 : 200) else { older = nil; break }
            // Read as far as here and not filled: the next page goes on from here.
            cursor = last.id
            older = last.id.rawValue
        }
        return RunHistory.RunsPage(
            runs: shown.map { RunHistory.RunSummary(run: Self.journalRun($0), state: $0.state.rawValue, counts: nil) },
            total: try await store.runCount(workflow: workflow), older: older, workflows: try await store.workflows())
    }

    public func run(_ id: Int64) async throws -> RunView? {
        guard let run = try await store.run(QueueRunID(id)) else { return nil }
        let jobs = try await store.jobs(of: run.id)
        let attempts = try await store.attempts(of: run.id)
        var names: [DurableJobID: String] = [:]
        for job in jobs { names[job.job.id] = job.name }
        let records = jobs.enumerated().map { position, entry in
            let job = entry.job
            return JournalJob(
                name: entry.name, position: position, status: Self.status(of: job), code: job.errorCode, error: job.error,
                attempts: job.attempts, startedAt: job.startedAt.map(Self.nanoseconds), endedAt: job.endedAt.map(Self.nanoseconds),
                parent: nil)
        }
        let logged = attempts.compactMap { attempt in
            names[attempt.job].map { name in
                JournalAttempt(
                    job: name, attempt: attempt.attempt, startedAt: Self.nanoseconds(attempt.startedAt),
                    endedAt: Self.nanoseconds(attempt.endedAt), exit: attempt.summary, exitCode: attempt.exitCode,
                    signal: attempt.signal, output: nil)
            }
        }
        let loaded = workflowFile(of: run)
        let journalRun = Self.journalRun(run)
        let graph = loaded.file.map { JournalGraph(file: $0) }
        let critical = graph.map { graph in
            RecordedCriticalPath.steps(jobs: records, graph: graph, runStart: journalRun.startedAt).map(\.job.rawValue)
        } ?? []
        var view = RunView(
            run: journalRun, state: run.state.rawValue, names: jobs.map(\.name), jobs: records, attempts: logged, graph: graph,
            graphRecorded: false, fileProblem: loaded.problem, critical: critical)
        view.origin = run.origin
        var workers: [String: [Int: String]] = [:]
        for attempt in attempts {
            if let name = names[attempt.job] { workers[name, default: [:]][attempt.attempt] = attempt.worker }
        }
        let ids = Dictionary(jobs.map { ($0.name, $0.job.id.rawValue) }) { first, _ in first }
        for index in view.jobs.indices {
            view.jobs[index].workers = workers[view.jobs[index].name] ?? [:]
            view.jobs[index].queueID = ids[view.jobs[index].name]
        }
        return view
    }

    public func output(of attempt: JournalAttempt, job: RunView.Job, run: Int64, last limit: Int?) async throws -> AttemptOutput {
        guard let id = job.queueID, let data = try await store.output(of: DurableJobID(id), attempt: attempt.attempt), !data.isEmpty else {
            return .nothing
        }
        return .bytes(limit.map { data.suffix($0) } ?? data, size: data.count)
    }

    /// Cancels every live job of the run, in the queue: workers stop the running ones.
    public func cancel(_ id: Int64) async throws -> String? {
        guard let run = try await store.run(QueueRunID(id)) else { return "there is no run #\(id)" }
        guard run.state == .running else { return "run #\(id) is not running (it is \(run.state.rawValue))" }
        _ = try await store.cancelRun(run.id, now: Int64(Date().timeIntervalSince1970 * 1000))
        return nil
    }

    /// The file the run was submitted from (its origin is `HOST:PATH`) when it is on this
    /// machine; else the file `serve` was given, when it is of the run's workflow (its
    /// directory's name).
    private func workflowFile(of run: QueueRun) -> (file: WorkflowFile?, problem: String?) {
        let origin = run.origin.split(separator: ":", maxSplits: 1).map(String.init)
        if origin.count == 2, origin[0] == ProcessInfo.processInfo.hostName, FileManager.default.fileExists(atPath: origin[1]) {
            return files.file(at: origin[1])
        }
        if let workflowPath, URL(fileURLWithPath: workflowPath).deletingLastPathComponent().lastPathComponent == run.workflow {
            return files.file(at: workflowPath)
        }
        return (nil, "the run was submitted from \(run.origin), which is not on this machine (give its file with -f)")
    }

    static func journalRun(_ run: QueueRun) -> JournalRun {
        JournalRun(
            id: run.id.rawValue, workflow: run.workflow, info: run.info, status: run.state.rawValue,
            startedAt: nanoseconds(run.createdAt), endedAt: run.endedAt.map(nanoseconds), jobCount: run.counts.values.reduce(0, +),
            succeeded: run.counts[.succeeded] ?? 0, failed: run.counts[.failed] ?? 0, skipped: run.counts[.skipped] ?? 0,
            cancelled: run.counts[.cancelled] ?? 0, timedOut: 0, sessions: 1)
    }

    /// A job's state in the journal's words: waiting and available jobs are pending.
    static func status(of job: DurableJob) -> String {
        switch job.state {
        case .waiting, .available: "pending"
        case .failed where job.errorCode == "timedOut": "timedOut"
        default: "\(job.state)"
        }
    }

    /// Milliseconds since 1970 (the queue's times) as nanoseconds (the journal's).
    static func nanoseconds(_ milliseconds: Int64) -> Int64 { milliseconds * 1_000_000 }
}
