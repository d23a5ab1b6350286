import Foundation
import Sequencer

/// One ``DurableQueue/work(maxConcurrency:)``: claims jobs from the store, runs them in an
/// in-process ``JobQueue`` (so timeouts, cancellation and priorities behave as in memory),
/// records their ends in batches, and renews its leases.
///
/// One loop does every claim and every write of ends, in turn: take back expired leases now and
/// then, record the ends gathered since the last turn and claim up to the free capacity (one
/// transaction), then wait for an end, an enqueue, the next run time or the poll.
final class WorkLoop: Sendable {
    struct Running: Sendable {
        let job: ClaimedJob
        let local: JobID
        /// This worker's count of its claims when it claimed the job: a heartbeat's answer about
        /// an earlier claim of the same job (which ended and was claimed again while the answer
        /// came) does not stop this one.
        let claim: UInt64
        /// Cancelled through ``DurableQueue/cancel(_:)`` (or no longer ours): its end is
        /// `.cancelled`, not `.released`.
        var cancelled = false
        /// Given up because its lease could not be renewed: no end is recorded for it, and its
        /// lease runs out (see ``giveUpRunningJobs()``).
        var givenUp = false
        /// When its body started, in the queue clock's nanoseconds; nil until it does.
        var startedAt: Int64?
    }

    /// A job whose body was given up on as work stopped, and how the local queue ended it.
    struct Abandoned: Sendable {
        let durable: DurableJobID
        let status: JobStatus
    }

    /// An attempt of a job.
    struct AttemptKey: Hashable, Sendable {
        let id: DurableJobID
        let attempt: Int
    }

    /// An ended attempt, for the metrics: its kind and lane, and how long it ran here (nil:
    /// its body never started).
    struct Measure: Sendable {
        let kind: String
        let lane: String?
        let ranNanoseconds: Int64?
    }

    struct State: Sendable {
        /// Claimed jobs whose end is not yet recorded.
        var running: [DurableJobID: Running] = [:]
        /// How many jobs this worker has started (see ``Running/claim``).
        var claims: UInt64 = 0
        var byLocal: [JobID: DurableJobID] = [:]
        /// Bodies' results, by local ID, until their job's end is seen.
        var results: [JobID: Result<Data, any Error>] = [:]
        /// Bodies under way, by local ID, from their start until they return.
        var bodies: Set<JobID> = []
        /// Jobs the local queue ended while their bodies still ran, as work stopped (a body
        /// that ignores its cancellation is given up after the local queue's grace period):
        /// their ends wait for what the bodies return (see ``awaitAbandonedBodies()``).
        var abandoned: [JobID: Abandoned] = [:]
        /// Ended attempts, to record.
        var ends: [AttemptEnd] = []
        /// What the metrics report of each gathered end, once the store has recorded it.
        var measures: [AttemptKey: Measure] = [:]
        /// Work was cancelled: jobs cancelled from now on are released, not cancelled.
        var stopping = false
        /// How many jobs to claim beyond the running slots.
        var window: ClaimWindow
        /// Kinds whose body threw ``CannotRunHere``, with the time until which none is claimed.
        var refused: [String: Int64] = [:]
        /// When the turn under way began to wait for the store; nil between turns.
        var turnSince: Int64?
        /// Draining (``drain(within:)``): no more claims; at this time the jobs still running are
        /// released. Nil while working.
        var drainUntil: Int64?

        /// Claimed jobs waiting for a slot, and running ones: up to this many.
        func capacity(slots: Int) -> Int { slots + window.ahead }
    }


    let queue: DurableQueue
    /// This worker's name in leases: host, process and a random part, new for each `work`.
    let owner: String
    /// The local queue's running slots.
    let slots: Int
    let local: JobQueue
    let events: AsyncStream<RunEvent>
    let state: Locked<State>
    /// When this worker began, in milliseconds since 1970.
    let startedAt: Int64

    init(queue: DurableQueue, maxConcurrency: Int) {
        self.queue = queue
        let host = ProcessInfo.processInfo.hostName
        owner = "\(host):\(ProcessInfo.processInfo.processIdentifier):\(UUID().uuidString.prefix(8).lowercased())"
        // Claimed jobs wait in the local queue while it is full: one turn claims for the next.
        slots = max(1, maxConcurrency)
        state = Locked(State(window: ClaimWindow(claimAhead: queue.options.claimAhead)))
        startedAt = queue.clock.now()
        let (events, continuation) = AsyncStream<RunEvent>.makeStream()
        self.events = events
        local = JobQueue(RunOptions(maxConcurrency: max(1, maxConcurrency), clock: queue.options.clock, events: continuation), keepFinished: 0)
    }

    var options: DurableQueue.Options { queue.options }
    var store: any QueueStore { queue.store }
    var clock: QueueClock { queue.clock }

    /// Works until the task is cancelled; then cancels the running bodies, releases their jobs
    /// and returns.
    func run() async throws {
        // Before the first gauges' reading: it counts this worker.
        await recordBeat()
        let collector = Task { [self] in
            for await event in events {
                switch event {
                case .started(let id): started(id)
                case .finished(let id, let status): ended(id, status)
                default: break
                }
            }
        }
        // A cancel heard from another process makes the heartbeat come at once.
        let beatNow = Doorbell()
        let heartbeat = Task { [self] in await beat(beatNow) }
        let gauges = Task { [self] in await readGauges() }
        let cancelNotices = store.cancelNotices().map { stream in Task { for await _ in stream { beatNow.ring() } } }
        // Other processes' commits that made jobs available wake this worker, as an enqueue here does.
        let wakeUps = store.wakeUps().map { stream in Task { [queue] in for await _ in stream { queue.doorbell.ring() } } }
        var failure: (any Error)?
        do {
            try await loop()
        } catch is CancellationError {
        } catch is Drained {
        } catch {
            failure = error
        }
        gauges.cancel()
        wakeUps?.cancel()
        cancelNotices?.cancel()
        state.withLock { $0.stopping = true }
        local.cancel()
        _ = await local.report()
        await collector.value
        // The heartbeat goes on renewing the leases of the jobs whose bodies were given up on.
        await Task { await awaitAbandonedBodies() }.value
        heartbeat.cancel()
        // The last ends are written even though this task was cancelled (the store's calls
        // check for cancellation): released jobs run again at once elsewhere.
        try await Task { try await flush() }.value
        await gauges.value
        await Task { await stopped() }.value
        if let failure { throw failure }
    }

    /// Turns until cancelled. A store that fails with ``QueueError/Code/database`` is tried
    /// again after a pause that doubles from 100 ms to 5 s (reset by a turn that works); other
    /// errors end the work.
    func loop() async throws {
        var turns = Turns()
        var pause = Duration.milliseconds(100)
        while true {
            do {
                try await turn(&turns)
                pause = .milliseconds(100)
            } catch let error as QueueError where error.code == .database {
                options.storeTrouble?(error)
                try await clock.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    /// A call of the store, abandoned after `limit`: by default a lease and a heartbeat, and
    /// 10 s at least. So a turn stuck in the store has the worker give its jobs up (see `beat`)
    /// before it is abandoned, and a slow store seldom has a turn abandoned that commits after
    /// all (its claims are left to their leases). See ``StoreDeadline``.
    func bounded<T: Sendable>(
        _ doing: String, within limit: Duration? = nil, _ call: @escaping @Sendable (any QueueStore) async throws -> T
    ) async throws -> T {
        let store = store
        let limit = limit ?? max(options.lease + options.heartbeat, .seconds(10))
        return try await StoreDeadline.value(within: limit, clock: clock, store: "\(store)", doing: doing) {
            try await call(store)
        }
    }

    /// When the worker last took back expired leases and pruned.
    struct Turns {
        var lastReap: Int64?
        var lastPrune: Int64?
    }

    /// One turn: reaps and prunes when due, records the gathered ends and claims in one
    /// transaction, starts the claimed jobs, and waits for the next turn.
    func turn(_ turns: inout Turns) async throws {
        let reapEvery = max(1, QueueClock.milliseconds(options.lease) / 2)
        let pruneEvery = max(60_000, QueueClock.milliseconds(options.retention) / 10)
        do {
            try Task.checkCancellation()
            var rung = queue.doorbell.version
            var now = clock.now()
            if turns.lastReap.map({ now - $0 >= reapEvery }) ?? true {
                turns.lastReap = now
                let (poisonLimit, at) = (options.poisonLimit, now)
                let taken = try await bounded("taking back expired leases") { try await $0.takeBack(now: at, poisonLimit: poisonLimit) }
                queue.metrics.storeEnded(taken)
                if taken.contains(where: { $0.reason == .leaseExpired }) { queue.doorbell.ring() }
            }
            if turns.lastPrune.map({ now - $0 >= pruneEvery }) ?? true {
                turns.lastPrune = now
                try await prune(now: now)
            }
            // The ends gathered since the last turn and the next claim: one transaction.
            let (drainUntil, drained) = state.withLock { ($0.drainUntil, $0.running.isEmpty && $0.ends.isEmpty) }
            if let drainUntil, drained || now >= drainUntil { throw Drained() }
            let kinds = drainUntil == nil ? claimableKinds(now: now) : []
            let ends = takeEnds()
            // Those claimed beyond the free running slots (`startable`) are claimed ahead (see
            // QueueStore.claim).
            let (free, startable) = state.withLock { state in
                (state.capacity(slots: slots) - state.running.count + ends.count, max(0, slots - state.byLocal.count))
            }
            now = clock.now()
            guard !ends.isEmpty || (free > 0 && !kinds.isEmpty) else {
                try await idle(after: rung, free: free, kinds: kinds, now: now)
                return
            }
            let claimed: [ClaimedJob]
            let done: [Bool]
            do {
                // In a task of its own, which cancelling `work` does not cancel: a transaction
                // that committed returns its claims, which the shutdown then releases (rather
                // than leaving them to their leases, each counted as a crash).
                let (owner, at, leaseUntil) = (owner, now, now + QueueClock.milliseconds(options.lease))
                state.withLock { $0.turnSince = at }
                defer { state.withLock { $0.turnSince = nil } }
                let turn = try await bounded("recording ends and claiming") { store in
                    try await store.finishAndClaim(
                        ends, kinds: free > 0 ? kinds : [], limit: max(0, free), slots: startable, owner: owner, now: at,
                        leaseUntil: leaseUntil
                    )
                }
                (done, claimed) = (turn.recorded, turn.claimed)
                queue.metrics.storeEnded(turn.skipped)
            } catch {
                state.withLock { $0.ends = ends + $0.ends }
                throw error
            }
            recorded(ends, done)
            let turned = ContinuousClock.now
            state.withLock { $0.window.turn(ended: ends.count, at: turned) }
            start(try await renewedIfLate(claimed, claimedAt: now))
            // Those waiting for an end or to see a job run (callers of result(of:), inspection)
            // look again. This worker does not: only for rings since the turn began.
            if !ends.isEmpty || !claimed.isEmpty, queue.doorbell.ring() == rung &+ 1 { rung &+= 1 }
            // A drain whose last ends these were is over.
            if state.withLock({ $0.drainUntil != nil && $0.running.isEmpty && $0.ends.isEmpty }) { throw Drained() }
            // After a full claim, the next turn comes when enough ends are in (see `ended`).
            try await idle(after: rung, free: free - claimed.count, kinds: kinds, now: now)
        }
    }

    /// The claimed jobs to start. A claim that came back late (its transaction waited, say, for
    /// a connection while the server restarted) holds leases that may run out before the next
    /// heartbeat, and a reaper may take the jobs back while they start: their leases are
    /// renewed first, and a job no longer this worker's (or cancelled) is not started, its
    /// attempt ended as cancelled (refused if it is no longer ours). If the renewal fails, the
    /// claimed jobs are released.
    func renewedIfLate(_ claimed: [ClaimedJob], claimedAt: Int64) async throws -> [ClaimedJob] {
        let now = clock.now()
        let lease = QueueClock.milliseconds(options.lease)
        guard !claimed.isEmpty, now - claimedAt > lease / 2 else { return claimed }
        let end = { (outcome: AttemptEnd.Outcome, jobs: [ClaimedJob]) in
            self.state.withLock { state in
                state.ends += jobs.map { AttemptEnd(id: $0.id, attempt: $0.attempt, owner: self.owner, outcome: outcome) }
                for job in jobs {
                    state.measures[AttemptKey(id: job.id, attempt: job.attempt)] = Measure(kind: job.kind, lane: job.lane, ranNanoseconds: nil)
                }
            }
        }
        let lost: Set<DurableJobID>
        do {
            let (owner, jobs) = (owner, claimed.map(\.id))
            lost = Set(try await bounded("renewing late claims") { try await $0.heartbeat(owner: owner, jobs: jobs, leaseUntil: now + lease, now: now) })
        } catch {
            end(.released, claimed)
            throw error
        }
        end(.cancelled, claimed.filter { lost.contains($0.id) })
        return claimed.filter { !lost.contains($0.id) }
    }

    /// Waits for an end, an enqueue in this process, the next run time of a job it could claim,
    /// or the poll.
    func idle(after rung: UInt64, free: Int, kinds: [String], now: Int64) async throws {
        // Deadlines from `now`, read before the turn: a clock that moved on since makes them
        // pass at once, and the next turn claims what came due meanwhile.
        var deadline = now + QueueClock.milliseconds(options.poll)
        if let drainUntil = state.withLock({ $0.drainUntil }) { deadline = min(deadline, drainUntil) }
        if free > 0, let next = try await bounded("reading the next run time", { try await $0.nextRunTime(kinds: kinds, after: now) }) {
            deadline = min(deadline, next)
        }
        try await queue.doorbell.wait(after: rung, until: deadline, clock: clock)
    }

    /// The registered kinds, but those refused here lately (see ``CannotRunHere``).
    func claimableKinds(now: Int64) -> [String] {
        let kinds = queue.kinds.withLock { Array($0.keys) }
        return state.withLock { state in
            state.refused = state.refused.filter { $0.value > now }
            return kinds.filter { state.refused[$0] == nil }
        }
    }

    /// How long a worker claims no job of a kind whose body threw ``CannotRunHere``.
    static let refusedKindPause = Duration.seconds(10)

    func prune(now: Int64) async throws {
        let succeeded = now - QueueClock.milliseconds(options.retention)
        _ = try await bounded("pruning") { try await $0.prune(endedBefore: succeeded, includingFailures: false) }
        if let failures = options.failureRetention.map({ now - QueueClock.milliseconds($0) }) {
            _ = try await bounded("pruning") { try await $0.prune(endedBefore: failures, includingFailures: true) }
        }
    }

    /// Thrown by a turn once a drain is over: every job ended, or its time ran out.
    struct Drained: Error {}

    /// Stops claiming, and gives back at once the jobs claimed ahead that have not started; the
    /// running ones go on for up to `grace`, and those still running then are released (their
    /// bodies cancelled), as when the task is cancelled. ``run()`` returns when the last ends.
    func drain(within grace: Duration) {
        let deadline = clock.now() + QueueClock.milliseconds(grace)
        let waiting = state.withLock { state -> [JobID] in
            guard state.drainUntil == nil else { return [] }
            state.drainUntil = deadline
            return state.running.values.filter { $0.startedAt == nil && state.byLocal[$0.local] != nil }.map(\.local)
        }
        for id in waiting { local.cancel(id) }
        queue.doorbell.ring()
    }
}
