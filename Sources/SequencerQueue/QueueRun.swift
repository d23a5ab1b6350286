public import Foundation
public import SequencerHistory

/// The ID of a run kept in a queue store (see ``RunStore``).
public struct QueueRunID: StoreRowID, CustomStringConvertible {
    public let rawValue: Int64

    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    public var description: String { "\(rawValue)" }
}

/// A run to create: a workflow's jobs, submitted together.
public struct NewQueueRun: Sendable {
    /// The workflow's name: its jobs' kind is derived from it, and runs are listed by it.
    public var workflow: String
    /// Where it was submitted from (host and file), to tell apart workflows of the same name.
    public var origin: String
    /// The submitter's notes (the command line keeps its options there).
    public var info: String?

    public init(workflow: String, origin: String, info: String? = nil) {
        self.workflow = workflow
        self.origin = origin
        self.info = info
    }
}

/// A run as a store reports it. Its state follows from its jobs'.
public struct QueueRun: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, Codable {
        /// A job of it is waiting, available or running.
        case running
        /// Every job succeeded.
        case succeeded
        /// A job failed or was skipped (and no one cancelled the run).
        case failed
        /// The run was cancelled (``RunStore/cancelRun(_:now:)``).
        case cancelled
    }

    public var id: QueueRunID
    public var workflow: String
    public var origin: String
    public var info: String?
    public var createdAt: Int64
    /// When it was cancelled, if it was.
    public var cancelledAt: Int64?
    /// How many of its jobs are in each state.
    public var counts: [DurableJobState: Int]
    /// Of its failed jobs, how many failed because their timeout passed (counted in `counts` too).
    public var timedOut = 0
    /// Of its succeeded jobs, how many a worker found up to date and did not run (counted in
    /// `counts` too).
    public var upToDate = 0
    /// When its last job ended, once none is live.
    public var endedAt: Int64?

    public init(
        id: QueueRunID, workflow: String, origin: String, info: String?, createdAt: Int64, cancelledAt: Int64?,
        counts: [DurableJobState: Int], endedAt: Int64?
    ) {
        self.id = id
        self.workflow = workflow
        self.origin = origin
        self.info = info
        self.createdAt = createdAt
        self.cancelledAt = cancelledAt
        self.counts = counts
        self.endedAt = endedAt
    }

    /// A run from its row and its jobs counted by state and detail (see ``countsByState``):
    /// it ended when its last job did, once none is live.
    public init(
        id: QueueRunID, workflow: String, origin: String, info: String?, createdAt: Int64, cancelledAt: Int64?,
        groups: [(state: DurableJobState, detail: Int, count: Int, lastEnded: Int64?)]
    ) {
        var counts: [DurableJobState: Int] = [:]
        var endedAt: Int64?
        var (timedOut, upToDate) = (0, 0)
        for group in groups {
            counts[group.state, default: 0] += group.count
            if group.detail == Self.timedOutDetail { timedOut += group.count }
            if group.detail == Self.upToDateDetail { upToDate += group.count }
            if let ended = group.lastEnded { endedAt = max(endedAt ?? ended, ended) }
        }
        let live = counts.contains { $0.key.isLive && $0.value > 0 }
        self.init(
            id: id, workflow: workflow, origin: origin, info: info, createdAt: createdAt, cancelledAt: cancelledAt, counts: counts,
            endedAt: live ? nil : endedAt ?? createdAt)
        (self.timedOut, self.upToDate) = (timedOut, upToDate)
    }

    /// The `detail` of a group of failed jobs whose timeout passed.
    static let timedOutDetail = 1
    /// The `detail` of a group of succeeded jobs found up to date.
    static let upToDateDetail = 2

    /// What both stores select to count a run's jobs, grouped by run, `state` and `detail`
    /// (from `run_jobs` joined to `jobs`; `PREFIX` is where their tables are): the detail tells
    /// timed-out jobs among the failed ones, and up-to-date ones among the succeeded.
    package static func countsByState(prefix: String) -> String {
        """
        SELECT run, state, CASE
            WHEN state = \(DurableJobState.failed.rawValue) AND error_code = 'timedOut' THEN \(timedOutDetail)
            WHEN state = \(DurableJobState.succeeded.rawValue) AND EXISTS (
                SELECT 1 FROM \(prefix)attempts WHERE attempts.job = jobs.id AND attempts.outcome = 'upToDate') THEN \(upToDateDetail)
            ELSE 0 END AS detail,
            count(*), max(ended_at)
        FROM \(prefix)run_jobs JOIN \(prefix)jobs ON jobs.id = run_jobs.job
        """
    }

    public var state: State {
        if counts.contains(where: { $0.key.isLive && $0.value > 0 }) { return .running }
        if cancelledAt != nil { return .cancelled }
        let bad = counts.contains { [.failed, .cancelled, .skipped].contains($0.key) && $0.value > 0 }
        return bad ? .failed : .succeeded
    }
}

/// A job of a run: its name in the workflow, and the durable job.
public struct QueueRunJob: Sendable, Hashable {
    public var name: String
    public var job: DurableJob

    public init(name: String, job: DurableJob) {
        self.name = name
        self.job = job
    }
}

/// One attempt of a run's job, as the worker that ran it recorded it: late attempts (whose end
/// the store refused, see ``AttemptEnd``) are recorded too, since they did run.
public struct QueueAttempt: Sendable, Hashable {
    public var job: DurableJobID
    public var attempt: Int
    /// The worker (its owner name in leases).
    public var worker: String
    public var startedAt: Int64
    public var endedAt: Int64
    /// `succeeded`, `failed`, `cancelled`, `timedOut`.
    public var outcome: String
    public var exitCode: Int?
    public var signal: Int?
    /// A line: "exit 0", "killed by SIGTERM", ...
    public var summary: String
    /// What it printed, when asked for (``RunStore/output(of:attempt:)``).
    public var output: Data?

    public init(
        job: DurableJobID, attempt: Int, worker: String, startedAt: Int64, endedAt: Int64, outcome: String, exitCode: Int?,
        signal: Int?, summary: String, output: Data?
    ) {
        self.job = job
        self.attempt = attempt
        self.worker = worker
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.exitCode = exitCode
        self.signal = signal
        self.summary = summary
        self.output = output
    }
}

/// A queue store that also keeps runs: a workflow's jobs submitted together (by
/// `sequencer run --queue`), read back from any process or machine (`runs`, `show`, `trace`).
///
/// A run's jobs are ordinary durable jobs, with every guarantee of ``QueueStore``; the store adds
/// their names, the run, and a log of attempts that workers write.
public protocol RunStore: QueueStore {
    /// Creates a run and enqueues its jobs, in one transaction (needs among them by
    /// ``NewDurableJob/needsInBatch``). Returns the run's ID and each job's.
    /// - Throws: ``QueueError`` as ``QueueStore/enqueue(_:now:)``, or for a name given twice.
    func createRun(_ run: NewQueueRun, jobs: [(name: String, job: NewDurableJob)], now: Int64) async throws -> (
        QueueRunID, [DurableJobID]
    )

    /// Runs, newest first: of one workflow, or all; older than run `before` when given (a page
    /// after the one that ended with it); at most `limit`.
    func runs(workflow: String?, before: QueueRunID?, limit: Int?) async throws -> [QueueRun]

    /// How many runs there are: of one workflow, or all.
    func runCount(workflow: String?) async throws -> Int

    /// The workflows that have runs, by name.
    func workflows() async throws -> [String]

    func run(_ id: QueueRunID) async throws -> QueueRun?

    /// A run's jobs, in the order they were submitted, with their outputs.
    func jobs(of run: QueueRunID) async throws -> [QueueRunJob]

    /// Adds an attempt to the log (replacing a record of the same job, attempt and worker).
    func recordAttempt(_ attempt: QueueAttempt) async throws

    /// The attempts of a run's jobs, oldest first, without their output.
    func attempts(of run: QueueRunID) async throws -> [QueueAttempt]

    /// What an attempt printed: of the given attempt, or the last recorded one of the job.
    func output(of job: DurableJobID, attempt: Int?) async throws -> Data?

    /// Cancels every live job of the run (as ``QueueStore/cancel(_:now:)`` does one) and marks
    /// the run cancelled. Returns how many jobs it cancelled.
    func cancelRun(_ id: QueueRunID, now: Int64) async throws -> Int

    /// Deletes ended runs (with their jobs and attempts) beyond the newest `keeping` of each
    /// workflow (of `workflow` only, when given). Returns the deleted runs.
    func deleteRuns(keeping: Int, workflow: String?) async throws -> [QueueRun]

    /// The fingerprints of the last successes of a workflow's jobs, by job name: of the jobs
    /// named in `jobs`, or of every job when it is nil.
    func fingerprints(workflow: String, jobs: [String]?) async throws -> [String: Fingerprint]

    /// Keeps the fingerprint of a workflow job that just succeeded, replacing the one before
    /// (its parts and outputs in their one encoding, as the journal keeps them).
    func recordFingerprint(_ fingerprint: Fingerprint, workflow: String, job: String, now: Int64) async throws
}

extension RunStore {
    /// Runs, newest first: of one workflow, or all; at most `limit`.
    public func runs(workflow: String?, limit: Int?) async throws -> [QueueRun] {
        try await runs(workflow: workflow, before: nil, limit: limit)
    }

    /// The fingerprints of the last successes of every job of a workflow, by job name.
    public func fingerprints(workflow: String) async throws -> [String: Fingerprint] {
        try await fingerprints(workflow: workflow, jobs: nil)
    }
}
