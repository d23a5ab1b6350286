public import Foundation
public import Sequencer

/// Where a durable queue keeps its jobs: one implementation per database (``SQLiteQueueStore``
/// here; PostgreSQL in `SequencerPostgres`).
///
/// A store is the queue's state machine on disk (see ``DurableJobState``). Each method is one
/// transaction: it happens whole or not at all, whatever crashes. Times are milliseconds since
/// 1970 and are passed in, so that tests can drive a store with a clock of their own.
///
/// What a store guarantees, whatever processes share it:
/// - A job is claimed by one worker at a time: by the owner of its lease.
/// - An attempt's end is recorded only if it comes from the attempt and the owner that hold the
///   job now (``AttemptEnd/attempt``, ``AttemptEnd/owner``); a late end of an attempt whose lease
///   expired, after the job was claimed again, is refused. So a success is recorded once.
/// - A job becomes available only once every job it needs has succeeded; when one of them
///   fails, is cancelled or is skipped, the job is skipped, in the same transaction.
/// - Two live jobs never share a key: enqueueing a key that a waiting, available or running job
///   has returns that job.
public protocol QueueStore: Sendable {
    /// Adds jobs, in order, each in the transaction of the batch; returns each one's ID (an
    /// existing job's, for a key that a live job has). A job's ``NewDurableJob/needsInBatch``
    /// name jobs before it in `jobs`, by position: they need the IDs those get.
    /// - Throws: ``QueueError`` for a need that is not in the store or not before it in the
    ///   batch, or an undeclared lane; then nothing was added.
    func enqueue(_ jobs: [NewDurableJob], now: Int64) async throws -> [DurableJobID]

    /// Claims up to `limit` available jobs whose run time has come, of the given kinds, highest
    /// priority first and then oldest first, within the room of their lanes; each gets its next
    /// attempt number and a lease for `owner` until `leaseUntil`.
    ///
    /// The first `slots` start at once (the worker's free slots); those beyond are claimed
    /// ahead, to wait in the worker for a slot. A worker that ends while holding a job claimed
    /// ahead did not crash on it: ``reap(now:poisonLimit:)`` counts no crash for it, and such a
    /// job is claimed only into a slot from then on. So a job that kills its worker as it starts
    /// fails as poison after at most one uncounted end, and the jobs waiting in a worker killed
    /// again and again never do.
    func claim(kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64) async throws -> [ClaimedJob]

    /// Records the ends of attempts, in one transaction, and releases or skips their dependents.
    /// Returns, for each, whether it was recorded (false: fenced, the attempt no longer holds
    /// the job).
    func finish(_ ends: [AttemptEnd], now: Int64) async throws -> [Bool]

    /// A worker's turn: records the ends of attempts (as ``finish(_:now:)``), then claims (as
    /// ``claim(kinds:limit:slots:owner:now:leaseUntil:)``), in one transaction.
    func finishAndClaim(
        _ ends: [AttemptEnd], kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64
    ) async throws -> StoreTurn

    /// Renews until `leaseUntil` the leases of those of `jobs` (what the owner believes it runs)
    /// that `owner` still runs, and no other: a job claimed by a transaction whose answer never
    /// came back is not renewed, so its lease runs out and it runs again. Returns which of
    /// `jobs` the owner should stop: cancelled since, or no longer its own.
    func heartbeat(owner: String, jobs: [DurableJobID], leaseUntil: Int64, now: Int64) async throws -> [DurableJobID]

    /// Takes back the running jobs whose lease expired before `now` (their worker ended, or lost
    /// touch): each becomes available again, or fails once its workers ended `poisonLimit` times
    /// while running it (a job claimed ahead is not counted: see
    /// ``claim(kinds:limit:slots:owner:now:leaseUntil:)``). Returns the jobs it took back
    /// (``StoreEnd/Reason/leaseExpired``), then those it skipped because a job failed as poison.
    func takeBack(now: Int64, poisonLimit: Int) async throws -> [StoreEnd]

    /// Cancels a job: a pending one ends at once and its dependents are skipped; a running one is
    /// marked, and its worker cancels it (see ``heartbeat(owner:jobs:leaseUntil:now:)``).
    /// Returns its state after the call; nil when there is no such job.
    func cancel(_ id: DurableJobID, now: Int64) async throws -> DurableJobState?

    /// Declares a lane, or changes its width: at most `width` of its jobs run at once, across
    /// every process working the store.
    func setLane(_ name: String, width: Int) async throws

    /// One job, with its output when it succeeded.
    func job(_ id: DurableJobID) async throws -> DurableJob?

    /// Jobs in the given states, oldest first, after `after` (for paging), without outputs.
    func jobs(in states: [DurableJobState], after: DurableJobID?, limit: Int) async throws -> [DurableJob]

    /// How many jobs are in each state.
    func counts() async throws -> [DurableJobState: Int]

    /// The earliest run time after `now` of an available job of these kinds: when a worker with
    /// nothing to do should look again.
    func nextRunTime(kinds: [String], after now: Int64) async throws -> Int64?

    /// Deletes the jobs that ended before `endedBefore` (succeeded ones and, when
    /// `includingFailures`, failed, cancelled and skipped ones). Returns how many.
    func prune(endedBefore: Int64, includingFailures: Bool) async throws -> Int

    /// Signals from other processes that jobs may have become available (PostgreSQL: its
    /// notifications), so that an idle worker looks at once rather than at its next poll; nil
    /// (the default) when the store has none, and workers rely on polling alone.
    func wakeUps() -> AsyncStream<Void>?

    /// Signals from other processes that a running job was asked to stop (PostgreSQL: its
    /// notifications), so that a worker asks at once (its heartbeat's answer names the jobs to
    /// stop) rather than at its next heartbeat; nil (the default) when the store has none.
    func cancelNotices() -> AsyncStream<Void>?

    /// Writes everything to the main database file (for SQLite, a checkpoint of the WAL), so
    /// that the file alone is a complete copy. Called on a clean exit.
    func close() async throws

    /// Records that a worker is alive, until ``WorkerBeat/aliveUntil`` (its heartbeat, and
    /// once as it starts), replacing its last beat. Beats that ended long ago are deleted.
    func beat(_ worker: WorkerBeat, now: Int64) async throws

    /// Deletes a worker's beat: it stopped cleanly.
    func workerStopped(_ owner: String) async throws

    /// The gauges, read by one process at a time: the one that holds the store's reading
    /// until `holdUntil` (milliseconds since 1970; from then on it is free). Returns nil, having read nothing, while
    /// another `reader` holds it; the holder renews it by reading again. So however many
    /// processes work the queue, one reports its gauges, and another takes over within a hold
    /// once it stops (at once after ``releaseGauges(reader:)``).
    func readGauges(reader: String, now: Int64, holdUntil: Int64) async throws -> QueueGauges?

    /// Gives up the gauges' reading, if `reader` holds it.
    func releaseGauges(reader: String) async throws

    /// The workers alive at `now`, oldest first.
    func workers(now: Int64) async throws -> [WorkerBeat]
}

/// A job to enqueue.
public struct NewDurableJob: Sendable {
    public var kind: String
    public var input: Data
    public var key: String?
    public var needs: [DurableJobID]
    /// Jobs it needs among those before it in the same ``QueueStore/enqueue(_:now:)`` call, by
    /// their position there (so that a graph is enqueued whole in one transaction).
    public var needsInBatch: [Int]
    public var priority: Priority
    public var lane: String?
    public var timeout: Duration?
    public var retry: StoredRetry
    /// When it may start, in milliseconds since 1970.
    public var runAt: Int64
    /// The trace context of its enqueueing (``QueueTracer``): what the tracer injected, as
    /// `name=value` lines; nil when nothing traces.
    public var traceContext: String?

    public init(
        kind: String, input: Data, key: String? = nil, needs: [DurableJobID] = [], needsInBatch: [Int] = [],
        priority: Priority = .utility, lane: String? = nil, timeout: Duration? = nil, retry: StoredRetry = .none, runAt: Int64,
        traceContext: String? = nil
    ) {
        self.traceContext = traceContext
        self.kind = kind
        self.input = input
        self.key = key
        self.needs = needs
        self.needsInBatch = needsInBatch
        self.priority = priority
        self.lane = lane
        self.timeout = timeout
        self.retry = retry
        self.runAt = runAt
    }
}

/// A job claimed by a worker: what it needs to run the attempt.
public struct ClaimedJob: Sendable, Hashable {
    public var id: DurableJobID
    public var kind: String
    public var input: Data
    /// The attempt's number: 1 for the first; the lease and the attempt's end carry it.
    public var attempt: Int
    public var priority: Priority
    public var lane: String?
    public var timeout: Duration?
    public var retry: StoredRetry
    /// Since when it could run, in milliseconds since 1970: its run time, or when its last
    /// need ended or its lease was taken back, whichever came last (nil if the store does not
    /// say). The worker reports the wait until its body starts (``QueueMetricNames/waited``).
    public var availableSince: Int64?
    /// The trace context of its enqueueing (``NewDurableJob/traceContext``).
    public var traceContext: String?

    public init(
        id: DurableJobID, kind: String, input: Data, attempt: Int, priority: Priority, lane: String?, timeout: Duration?,
        retry: StoredRetry, availableSince: Int64? = nil, traceContext: String? = nil
    ) {
        self.traceContext = traceContext
        self.id = id
        self.kind = kind
        self.input = input
        self.attempt = attempt
        self.priority = priority
        self.lane = lane
        self.timeout = timeout
        self.retry = retry
        self.availableSince = availableSince
    }
}

/// How an attempt ended, as its worker reports it.
public struct AttemptEnd: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable {
        /// Its body returned this output (encoded).
        case succeeded(Data)
        /// Its body failed: tried again from `retryAt` (milliseconds since 1970), or, with nil,
        /// failed for good and its dependents skipped.
        case failed(code: String, message: String, retryAt: Int64?)
        /// It was cancelled (``QueueStore/cancel(_:now:)``): its dependents are skipped.
        case cancelled
        /// Its worker stopped before the attempt ended (a clean shutdown): the job is available
        /// again at once, and the attempt is not counted.
        case released
    }

    public var id: DurableJobID
    public var attempt: Int
    public var owner: String
    public var outcome: Outcome

    public init(id: DurableJobID, attempt: Int, owner: String, outcome: Outcome) {
        self.id = id
        self.attempt = attempt
        self.owner = owner
        self.outcome = outcome
    }
}

/// A retry policy as a store keeps it: its numbers. (A predicate from
/// ``RetryPolicy/retrying(when:)`` is not stored: it is the enqueueing process's code.)
public struct StoredRetry: Sendable, Hashable, Codable {
    public var maxAttempts: Int
    public var initialMilliseconds: Int64
    public var multiplier: Double
    public var maximumMilliseconds: Int64
    public var jitter: Double

    public static let none = StoredRetry(maxAttempts: 1, initialMilliseconds: 0, multiplier: 1, maximumMilliseconds: 0, jitter: 0)

    public init(maxAttempts: Int, initialMilliseconds: Int64, multiplier: Double, maximumMilliseconds: Int64, jitter: Double) {
        self.maxAttempts = maxAttempts
        self.initialMilliseconds = initialMilliseconds
        self.multiplier = multiplier
        self.maximumMilliseconds = maximumMilliseconds
        self.jitter = jitter
    }
}

/// A job as a store reports it.
public struct DurableJob: Sendable, Hashable {
    public var id: DurableJobID
    public var kind: String
    public var state: DurableJobState
    public var key: String?
    public var lane: String?
    public var priority: Priority
    /// Attempts started so far (an attempt whose worker ended counts).
    public var attempts: Int
    /// How many times a worker ended (crashed, or lost its lease) while running it.
    public var crashes: Int
    /// The last failure's code and message: of the last failed attempt, or why it was skipped.
    public var errorCode: String?
    public var error: String?
    /// For a skipped job: the need that did not succeed.
    public var cause: DurableJobID?
    public var enqueuedAt: Int64
    /// When it may start (for a job waiting to be retried, the next attempt).
    public var runAt: Int64
    public var startedAt: Int64?
    public var endedAt: Int64?
    /// The worker that holds it, while it runs.
    public var owner: String?
    /// The encoded output, when it succeeded and it was asked for.
    public var output: Data?

    public init(
        id: DurableJobID, kind: String, state: DurableJobState, key: String?, lane: String?, priority: Priority,
        attempts: Int, crashes: Int, errorCode: String?, error: String?, cause: DurableJobID?, enqueuedAt: Int64,
        runAt: Int64, startedAt: Int64?, endedAt: Int64?, owner: String?, output: Data?
    ) {
        self.id = id
        self.kind = kind
        self.state = state
        self.key = key
        self.lane = lane
        self.priority = priority
        self.attempts = attempts
        self.crashes = crashes
        self.errorCode = errorCode
        self.error = error
        self.cause = cause
        self.enqueuedAt = enqueuedAt
        self.runAt = runAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.owner = owner
        self.output = output
    }
}

extension NewDurableJob {
    /// The job with its ``needsInBatch`` turned into IDs: `ids` are those of the jobs before it
    /// in the batch, and `position` its own place there (for the error).
    /// - Throws: ``QueueError/Code/unknownNeed`` for a position that is not before it.
    public func resolvingBatchNeeds(_ ids: [DurableJobID], position: Int, location: String) throws -> NewDurableJob {
        guard !needsInBatch.isEmpty else { return self }
        var job = self
        for need in needsInBatch {
            guard need >= 0, need < ids.count, need < position else {
                throw QueueError(
                    code: .unknownNeed, location: location,
                    message: "job \(position) of the batch (kind '\(kind)') needs job \(need) of the batch, which does not come before it")
            }
            job.needs.append(ids[need])
        }
        job.needsInBatch = []
        return job
    }
}

extension QueueStore {
    /// Claims jobs that all start at once: none is claimed ahead.
    public func claim(kinds: [String], limit: Int, owner: String, now: Int64, leaseUntil: Int64) async throws -> [ClaimedJob] {
        try await claim(kinds: kinds, limit: limit, slots: limit, owner: owner, now: now, leaseUntil: leaseUntil)
    }

    /// A turn whose claimed jobs all start at once: none is claimed ahead.
    public func finishAndClaim(
        _ ends: [AttemptEnd], kinds: [String], limit: Int, owner: String, now: Int64, leaseUntil: Int64
    ) async throws -> StoreTurn {
        try await finishAndClaim(ends, kinds: kinds, limit: limit, slots: limit, owner: owner, now: now, leaseUntil: leaseUntil)
    }

    /// Takes back the running jobs whose lease expired (see ``takeBack(now:poisonLimit:)``);
    /// returns how many.
    public func reap(now: Int64, poisonLimit: Int) async throws -> Int {
        try await takeBack(now: now, poisonLimit: poisonLimit).filter { $0.reason == .leaseExpired }.count
    }

    /// None: workers find other processes' jobs by polling.
    public func wakeUps() -> AsyncStream<Void>? { nil }

    /// None: workers hear of cancels at their next heartbeat.
    public func cancelNotices() -> AsyncStream<Void>? { nil }

    /// The ends, then the claim, in two transactions: for a store that cannot do both in one
    /// (and cannot say what the ends skipped).
    public func finishAndClaim(
        _ ends: [AttemptEnd], kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64
    ) async throws -> StoreTurn {
        let recorded = try await finish(ends, now: now)
        let claimed = try await claim(kinds: kinds, limit: limit, slots: slots, owner: owner, now: now, leaseUntil: leaseUntil)
        return StoreTurn(recorded: recorded, claimed: claimed)
    }
}
