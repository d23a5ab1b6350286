import Foundation
public import SequencerHistory

/// A durable queue as a history: the runs `sequencer run --queue` submitted, read from the
/// queue's database (an SQLite file, or PostgreSQL, where workers on other machines write them).
/// Its runs keep no graph: ``RunRecord/workflowFile`` names the file a run was submitted from
/// when it is on this machine.
public final class QueueHistory: RunHistory {
    public let store: any RunStore
    /// The location, as it may be shown (a URL's password masked).
    public let location: String

    /// - Parameter location: The queue's location as it may be shown (mask a URL's password).
    public init(store: any RunStore, location: String) {
        self.store = store
        self.location = location
    }

    public var name: String { "queue \(location)" }
    public var states: [RunState] { [.running, .succeeded, .failed, .cancelled] }
    /// A queue's run that did not succeed is submitted again as a new run, not resumed.
    public var resumes: Bool { false }
    /// A queue cannot say cheaply whether a run changed: a running run is read twice a second.
    public var pollInterval: Duration { .milliseconds(500) }
    public func version() async throws -> Int? { nil }

    public func fingerprints(workflow: String, jobs: [String]?) async throws -> [String: Fingerprint] {
        try await store.fingerprints(workflow: workflow, jobs: jobs)
    }

    /// A queue names a workflow by its file's directory.
    public func workflow(ofFile path: String) -> String { Self.workflowName(ofFile: path) }

    /// A workflow's name in a queue: the name of its file's directory.
    public static func workflowName(ofFile path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().lastPathComponent
    }

    /// The most pages of runs read to fill one page of a state (which follows from each run's
    /// jobs, so it is filtered after reading).
    static let filteredReads = 20

    public func runs(_ query: RunQuery) async throws -> RunsPage {
        let state = query.state
        let batchSize = state == nil ? query.limit + 1 : 200
        var shown: [HistoryRun] = []
        var cursor = query.before.map { QueueRunID($0) }
        var older: Int64?
        for _ in 0..<(state == nil ? 1 : Self.filteredReads) {
            let batch = try await store.runs(workflow: query.workflow, before: cursor, limit: batchSize)
            shown += batch.map(Self.run).filter { state == nil || $0.state == state }
            if shown.count > query.limit {
                shown = Array(shown.prefix(query.limit))
                older = shown.last?.id
                break
            }
            guard let last = batch.last, batch.count == batchSize else { older = nil; break }
            // Read as far as here and not filled: the next page goes on from here.
            cursor = last.id
            older = last.id.rawValue
        }
        return RunsPage(runs: shown, total: try await store.runCount(workflow: query.workflow), older: older, workflows: try await store.workflows())
    }

    public func run(_ id: Int64) async throws -> RunRecord? {
        guard let run = try await store.run(QueueRunID(id)) else { return nil }
        let entries = try await store.jobs(of: run.id)
        let logged = try await store.attempts(of: run.id)
        var names: [DurableJobID: String] = [:]
        for entry in entries { names[entry.job.id] = entry.name }
        let upToDate = Set(logged.filter { $0.outcome == Self.upToDateOutcome }.map(\.job))
        // A check that found its job up to date is no attempt: nothing ran (the journal keeps
        // none for such a job either); the job's state says it.
        let attempts = logged.compactMap { attempt in
            attempt.outcome == Self.upToDateOutcome ? nil : names[attempt.job].map { Self.attempt(attempt, job: $0) }
        }
        let jobs = entries.enumerated().map { position, entry in
            Self.job(entry, position: position, upToDate: upToDate.contains(entry.job.id))
        }
        var record = Self.run(run)
        record.counts.retried = jobs.count { $0.attempts > 1 }
        return RunRecord(
            run: record, names: entries.map(\.name), jobs: jobs, attempts: attempts, graph: nil, workflowFile: Self.localFile(of: run))
    }

    public func summary(of id: Int64) async throws -> HistoryRun? {
        try await store.run(QueueRunID(id)).map(Self.run)
    }

    public func jobs(of id: Int64) async throws -> [HistoryJob] {
        let entries = try await store.jobs(of: QueueRunID(id))
        // Only a succeeded job can have been up to date: its attempts say whether it was.
        let upToDate = entries.contains { $0.job.state == .succeeded }
            ? Set(try await store.attempts(of: QueueRunID(id)).filter { $0.outcome == Self.upToDateOutcome }.map(\.job)) : []
        return entries.enumerated().map { position, entry in
            Self.job(entry, position: position, upToDate: upToDate.contains(entry.job.id))
        }
    }

    public func output(of attempt: HistoryAttempt, in record: RunRecord, last limit: Int?) async throws -> AttemptOutput {
        guard let id = record.jobs.first(where: { $0.name == attempt.job })?.queueID,
              let data = try await store.output(of: DurableJobID(id), attempt: attempt.attempt), !data.isEmpty
        else { return .nothing }
        return .bytes(limit.map { data.suffix($0) } ?? data, size: data.count)
    }

    /// Cancels every live job of the run, in the queue: workers stop the running ones.
    public func cancel(_ id: Int64) async throws -> String? {
        guard let run = try await store.run(QueueRunID(id)) else { return "there is no run #\(id)" }
        guard run.state == .running else { return "run #\(id) is not running (it is \(Self.run(run).state))" }
        _ = try await store.cancelRun(run.id, now: Int64(Date().timeIntervalSince1970 * 1000))
        return nil
    }

    /// Deletes the ended runs beyond the newest `keep` of each workflow, with their jobs and
    /// attempt logs (their output).
    public func deleteRuns(keeping keep: Int) async throws -> DeletedRuns {
        DeletedRuns(runs: try await store.deleteRuns(keeping: keep, workflow: nil).map(\.id.rawValue))
    }

    // MARK: In the history's words

    /// What a worker records as the outcome of an attempt that found its job up to date.
    public static let upToDateOutcome = NewAttempt.End.upToDate.rawValue
    /// What a worker records as the outcome of an attempt it refused to run.
    public static let refusedOutcome = NewAttempt.End.refused.rawValue

    public static func run(_ run: QueueRun) -> HistoryRun {
        let succeeded = run.counts[.succeeded] ?? 0
        let failed = run.counts[.failed] ?? 0
        let counts = JobCounts(
            jobs: run.counts.values.reduce(0, +), succeeded: succeeded - run.upToDate, upToDate: run.upToDate,
            failed: failed - run.timedOut, timedOut: run.timedOut, cancelled: run.counts[.cancelled] ?? 0,
            skipped: run.counts[.skipped] ?? 0)
        let state: RunState = switch run.state {
        case .running: .running
        case .succeeded: .succeeded
        case .failed: .failed
        case .cancelled: .cancelled
        }
        return HistoryRun(
            id: run.id.rawValue, workflow: run.workflow, origin: run.origin, info: run.info, state: state,
            startedAt: nanoseconds(run.createdAt), endedAt: run.endedAt.map(nanoseconds), counts: counts)
    }

    /// A job's state in the history's words: waiting and available jobs are pending.
    public static func state(of job: DurableJob, upToDate: Bool) -> JobState {
        switch job.state {
        case .waiting, .available: .pending
        case .running: .running
        case .succeeded: upToDate ? .upToDate : .succeeded
        case .failed: job.errorCode == "timedOut" ? .timedOut : .failed
        case .cancelled: .cancelled
        case .skipped: .skipped
        }
    }

    static func job(_ entry: QueueRunJob, position: Int, upToDate: Bool) -> HistoryJob {
        let job = entry.job
        return HistoryJob(
            name: entry.name, position: position, state: state(of: job, upToDate: upToDate), code: job.errorCode, error: job.error,
            attempts: job.attempts, startedAt: job.startedAt.map(nanoseconds), endedAt: job.endedAt.map(nanoseconds),
            queueID: job.id.rawValue)
    }

    static func attempt(_ attempt: QueueAttempt, job: String) -> HistoryAttempt {
        var recorded = HistoryAttempt(
            job: job, attempt: attempt.attempt, startedAt: nanoseconds(attempt.startedAt), endedAt: nanoseconds(attempt.endedAt),
            exit: attempt.summary, exitCode: attempt.exitCode, signal: attempt.signal, worker: attempt.worker)
        recorded.refused = attempt.outcome == Self.refusedOutcome
        return recorded
    }

    /// The file the run was submitted from (its origin is `HOST:PATH`) when it is on this machine.
    static func localFile(of run: QueueRun) -> String? {
        let origin = run.origin.split(separator: ":", maxSplits: 1).map(String.init)
        guard origin.count == 2, origin[0] == ProcessInfo.processInfo.hostName, FileManager.default.fileExists(atPath: origin[1]) else {
            return nil
        }
        return origin[1]
    }

    /// Milliseconds since 1970 (a queue's times) as nanoseconds (a history's).
    static func nanoseconds(_ milliseconds: Int64) -> Int64 { milliseconds * 1_000_000 }
}
