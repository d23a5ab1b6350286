import Synchronization

/// The running half of a ``Run``: the scheduler behind a mutex, and the workers that pull
/// jobs from it.
///
/// Workers are a small pool of tasks (at most `maxConcurrency`), not a task per job. A worker
/// runs a job's body, then, under the lock, records the outcome and takes its next job in the
/// same step. Wake-ups, spawns and cancellations decided under the lock happen after it is
/// released; nothing awaits while holding it.
final class RunCore: Sendable {
    /// What wakes a parked worker (with its next job, or nil to exit) or a parent waiting for
    /// its children (with nil).
    typealias Waiter = CheckedContinuation<Int32?, Never>
    typealias Scheduler = SchedulerState<Waiter>

    /// A worker's task and what it reports without the lock, by slot.
    struct Worker {
        let generation: UInt32
        let task: Task<Void, Never>
        let probe: WorkerProbe
        /// The priority its task was started at.
        let priority: Priority
    }

    struct State {
        var scheduler: Scheduler
        var report: RunReport?
        var reportWaiters: [CheckedContinuation<RunReport, Never>] = []
        /// Tasks to cancel when the run ends: the deadline timer, snapshot streams.
        var timers: [Task<Void, Never>] = []
        /// The workers' tasks, by slot.
        var workers: [Worker?] = []
        /// Workers that gave their slot to a parent resuming, parked to be the next new workers
        /// (see `RunCore+Spares.swift`).
        var spares: [Spare] = []
        /// How many worker tasks the run started: read by tests.
        var startedWorkers = 0
    }

    let plan: Plan
    let time: any RunTime
    let state: Locked<State>
    /// Whether every worker the run may have is busy: no worker is parked and no more may start.
    /// Written after each step; a worker goes on with its batch only while it holds, since
    /// otherwise the ends it would hold back could let another worker start their dependents.
    private let saturated = Atomic<Bool>(false)
    /// Timeouts and grace periods, behind their own lock (see `RunCore+Timers.swift`).
    let runTimers = Locked(Timers())
    private let hasOptions: Bool
    /// How long a cancelled or timed-out body may take to return before it is abandoned.
    private let gracePeriod: Int64
    /// The run's deadline, as an offset from its start.
    private let deadline: Int64?
    /// Where the run is recorded, and what it reads the run's records from; nil when it is not.
    private let recorder: (any RunRecorder)?
    private let log: RunLog?
    private let events: AsyncStream<RunEvent>.Continuation?

    /// A run of `plan`; with `keepFinished`, a queue (see ``SchedulerState/init(plan:maxWorkers:keepGoing:sendsEvents:isRecorded:keepFinished:)``).
    init(plan: Plan, options: RunOptions, log: RunLog? = nil, keepFinished: Int? = nil) {
        self.plan = plan
        time = makeRunTime(options.clock)
        hasOptions = plan.hasOptions
        gracePeriod = max(.zero, options.gracePeriod).nanoseconds
        deadline = options.deadline?.nanoseconds
        state = Locked(State(scheduler: Scheduler(
            plan: plan, maxWorkers: options.maxConcurrency, keepGoing: options.keepGoing, sendsEvents: options.events != nil,
            isRecorded: options.recorder != nil, keepFinished: keepFinished, readyOrder: options.readyOrder,
            batchLimit: Self.batchLimit(plan: plan, options: options, isQueue: keepFinished != nil))))
        events = options.events
        recorder = options.recorder
        self.log = log
        log?.attach(self)
    }

    func begin() {
        step { $0.scheduler.begin() }
        // The timer starts after the first jobs were queued, so a deadline that has already
        // passed cancels a run that has begun; a run that already ended needs no timer.
        if let deadline {
            let timer = Task { [self] in
                do { try await time.sleep(untilOffset: deadline) } catch { return }
                step { $0.scheduler.cancelAll(reason: .deadline, now: deadline) }
            }
            if !addTimer(timer) { timer.cancel() }
        }
    }

    // MARK: - Workers

    /// How many jobs a worker runs back to back before it yields its thread.
    static let jobsBetweenYields = 256

    /// The most jobs a worker takes in one step (see `SchedulerState+Batches.swift`): 1, one at a
    /// time, when each start is observed (events, a recorder), when jobs have priorities, and in
    /// a queue.
    static func batchLimit(plan: Plan, options: RunOptions, isQueue: Bool) -> Int {
        options.events == nil && options.recorder == nil && !plan.hasPriorities && !isQueue ? 32 : 1
    }

    /// How long a worker runs the jobs of a batch before it reports their ends, in nanoseconds:
    /// their dependents wait for the report, so a batch of slow jobs reports early.
    static let batchReportInterval: Int64 = 50_000

    private func work(slot first: Int, generation firstGeneration: UInt32, first firstJob: Int32, probe: WorkerProbe) async {
        // A spare worker takes another slot, with its generation, when it is reused.
        var (slot, generation) = (first, firstGeneration)
        var job = firstJob
        /// Whether this worker may stay as a spare when it is told to exit: read before its
        /// report, which forgets whether its job was cancelled (see ``mayBeSpare(slot:generation:_:)``).
        var mayStay = false
        /// What the next job needs to run, when it was added at run time: read in the step that
        /// took it, to save taking the lock again.
        var spec: JobSpec?
        var ranWithoutYielding = 0
        /// The jobs taken with `job` in one step (see ``BatchClaim``), the position of the next
        /// one, and when the batch began.
        var batch: [Int32] = []
        var position = 0
        var batchStart: Int64 = 0
        var claim: BatchClaim?
        /// The end of the job before, when the next one of its batch begins right after it.
        var previousEnd: Int64?
        while true {
            // Read after the job was taken: its needs' end times were read before they were
            // recorded under the lock, so this reading is never earlier than any of them. A
            // job of a batch begins when the job before it ended, which is later than that
            // batch was taken: one reading of the clock a job, not two.
            let startedAt = previousEnd ?? time.now()
            previousEnd = nil
            probe.started(job, at: startedAt)
            if position == 1 { batchStart = startedAt }
            var completion: Completion
            if plan.contains(job), !plan.hasPriorities {
                // Most jobs: no priority to raise; the first attempt runs here, with its timeout
                // if it has one, and only a failure looks at the retry policy. It repeats the
                // first pass of `execute`, and earns it: without it, a flat run of 300,000 no-op
                // jobs took 879 ns a job against 555 (best of three rounds of five each,
                // `sequencer-bench --sizes 300000`, issue 28), and every round was slower.
                let timeout = hasOptions ? plan.timeout(of: Int(job)) : nil
                if let timeout { timeAttempt(of: job, after: timeout, from: startedAt, probe: probe) }
                var failure: (any Error)?
                do {
                    let value = try await plan.bodies[Int(job)].run(JobContext(job: job, attempt: 1, slot: slot, probe: probe, core: self))
                    completion = Completion(result: .succeeded(value), attempts: 1, startedAt: startedAt, endedAt: 0)
                } catch {
                    failure = error
                    completion = Completion(result: .threw(error), attempts: 1, startedAt: startedAt, endedAt: 0)
                }
                if probe.takeAddedChildren() {
                    await settleChildren(of: job, slot: slot, attemptFailed: failure != nil)
                }
                if timeout != nil, !probe.endTimed() {
                    completion = Completion(result: .timedOut, attempts: 1, startedAt: startedAt, endedAt: time.now())
                } else {
                    completion.endedAt = time.now()
                    if hasOptions, let failure, plan.hasOptions(Int(job)) {
                        completion = await execute(job, slot: slot, generation: generation, startedAt: startedAt, probe: probe, afterFailure: failure)
                    }
                }
            } else {
                completion = await execute(job, slot: slot, generation: generation, spec: spec, startedAt: startedAt, probe: probe)
            }
            spec = nil
            ranWithoutYielding &+= 1
            // The next job of a batch begins without the lock while the jobs succeed, for a
            // short while, and until a yield is due; their ends are reported together.
            if position < batch.count, case .succeeded = completion.result, ranWithoutYielding < Self.jobsBetweenYields,
                saturated.load(ordering: .relaxed),
                completion.endedAt - batchStart < Self.batchReportInterval, let claim, claim.begin(position, generation: generation)
            {
                probe.ended(job, completion)
                job = batch[position]
                position += 1
                previousEnd = completion.endedAt
                continue
            }
            let earlier = batch.isEmpty ? [] : probe.takeEnded()
            batch = []
            var next = step { state in
                mayStay = Self.mayBeSpare(slot: slot, generation: generation, state)
                let actions = state.scheduler.finish(job, completion, earlier: earlier, slot: slot, generation: generation)
                if case .run(let next)? = actions.worker {
                    if !plan.contains(next) { spec = state.scheduler.spec(of: next) }
                    if !actions.batch.isEmpty { (batch, claim) = (actions.batch, state.scheduler.workers[slot].claim) }
                }
                return actions
            }
            if next == .park {
                let woken = await withCheckedContinuation { continuation in
                    next = step { state in
                        mayStay = Self.mayBeSpare(slot: slot, generation: generation, state)
                        let actions = state.scheduler.park(slot: slot, continuation)
                        if case .run? = actions.worker, !actions.batch.isEmpty {
                            (batch, claim) = (actions.batch, state.scheduler.workers[slot].claim)
                        }
                        return actions
                    }
                    switch next {
                    case .run(let job): continuation.resume(returning: job)
                    case .exit: continuation.resume(returning: nil)
                    case .park, nil: break
                    }
                }
                next = woken.map { .run($0) } ?? .exit
            }
            guard case .run(let nextJob) = next else {
                // Told to exit, most often to make room for a parent resuming: a worker that
                // may stays parked, to be the next new worker, rather than end its task.
                guard mayStay, let assignment = await waitAsSpare(slot: slot, generation: generation) else { return }
                (slot, generation, job) = (assignment.slot, assignment.generation, assignment.job)
                (batch, position, claim, mayStay) = ([], 0, nil, false)
                continue
            }
            job = nextJob
            position = batch.isEmpty ? 0 : 1
            if batch.count > 1 { probe.touched(plan.touchBodies(batch)) }
            // A worker whose jobs never suspend would keep its thread of the shared pool for
            // the whole run: every so often it lets other tasks run. (A run of 200,000 no-op
            // jobs held both threads of a 2-core machine for minutes under ThreadSanitizer,
            // stalling everything else in the process.)
            if ranWithoutYielding >= Self.jobsBetweenYields {
                ranWithoutYielding = 0
                await Task.yield()
            }
        }
    }

    /// Runs a job's body with its retries and timeout, at its priority, timing it. With
    /// `afterFailure`, the first attempt already ran and threw it: the retries follow.
    @inline(never)
    private func execute(_ job: Int32, slot: Int, generation: UInt32, spec known: JobSpec? = nil, startedAt: Int64, probe: WorkerProbe, afterFailure: (any Error)? = nil) async -> Completion {
        // The job was taken under the lock, so it starts even if its run was cancelled since:
        // its body sees the cancellation at once.
        let spec = plan.contains(job) ? nil : known ?? state.withLock { $0.scheduler.spec(of: job) }
        if spec == nil, !plan.contains(job) {
            // Abandoned before this worker read it, and forgotten since: it ended without this
            // worker, whose report is ignored.
            return Completion(result: .threw(CancellationError()), attempts: 0, startedAt: startedAt, endedAt: time.now())
        }
        let body = spec?.body ?? plan.bodies[Int(job)]
        // Read field by field: the options are copied whole only when an attempt fails.
        let timeout = spec != nil ? spec?.options?.timeoutNanoseconds : plan.timeout(of: Int(job))
        // A worker's task keeps the priority of the job it was started for; a job of higher
        // priority runs in a child task at its own priority.
        let priority = spec?.priority ?? plan.priority(of: Int(job))
        let raise = (spec != nil || plan.hasPriorities)
            && priority.taskPriority > (Task.basePriority ?? Task.currentPriority)
        var attempt = 1
        var ranAlready = afterFailure != nil
        while true {
            var value: (any Sendable)?
            var failure: (any Error)? = afterFailure
            if !ranAlready {
                let context = JobContext(job: job, attempt: attempt, slot: slot, probe: probe, core: self)
                if let timeout { timeAttempt(of: job, after: timeout, from: time.now(), probe: probe) }
                failure = nil
                do {
                    if raise {
                        value = try await inChildTask(priority: priority.taskPriority) { try await body.run(context) }
                    } else {
                        value = try await body.run(context)
                    }
                } catch {
                    failure = error
                }
                if probe.takeAddedChildren() {
                    // The attempt, and its timeout, last until its children have ended.
                    await settleChildren(of: job, slot: slot, attemptFailed: failure != nil)
                }
                if timeout != nil, !probe.endTimed() {
                    return Completion(result: .timedOut, attempts: attempt, startedAt: startedAt, endedAt: time.now())
                }
                if let value {
                    return Completion(result: .succeeded(value), attempts: attempt, startedAt: startedAt, endedAt: time.now())
                }
            }
            ranAlready = false
            let error = failure ?? CancellationError()
            let policy = spec != nil ? spec?.options?.retry ?? .none : plan.options(of: Int(job))?.retry ?? .none
            if let delay = retryDelay(after: error, attempt: attempt, policy: policy), mayRetry(job, slot: slot, generation: generation) {
                attempt += 1
                probe.attempting(attempt)
                if (try? await time.sleep(for: delay)) != nil, !Task.isCancelled { continue }
                attempt -= 1  // the retry never started
                probe.attempting(attempt)
            }
            return Completion(result: .threw(error), attempts: attempt, startedAt: startedAt, endedAt: time.now())
        }
    }

    /// The wait before the next attempt, or nil when the job must not be tried again: its policy
    /// says so, it was cancelled, or the wait would end after the run's deadline.
    private func retryDelay(after error: any Error, attempt: Int, policy: RetryPolicy) -> Duration? {
        guard attempt < policy.maxAttempts, !Task.isCancelled,
            let delay = policy.delay(after: error, beforeAttempt: attempt + 1, random: Double.random(in: 0..<1))
        else { return nil }
        if let deadline, time.now() + delay.nanoseconds >= deadline { return nil }
        return delay
    }

    /// Whether a job whose attempt failed may be tried again, asked of the scheduler: a cancel
    /// it decided reaches this worker's task only after its lock is released, and the attempt
    /// may have failed because of that cancel (an added child refused) before the task knew. A
    /// cancel decided after this answer cancels the task, and the next attempt sees it.
    /// When it may, the jobs of its batch not begun go back to the ready queue: they need not
    /// wait out its delay.
    private func mayRetry(_ job: Int32, slot: Int, generation: UInt32) -> Bool {
        var allowed = false
        step { state in
            let actions: Scheduler.Actions
            (allowed, actions) = state.scheduler.retry(job, slot: slot, generation: generation)
            return actions
        }
        return allowed
    }

    /// Times one attempt that started at `start`, in its worker's `probe`: when `timeout`
    /// nanoseconds pass before the attempt ends (``WorkerProbe/endTimed()``), the job is timed
    /// out (its body cancelled, then abandoned after the grace period). See ``AttemptTimer``.
    private func timeAttempt(of job: Int32, after timeout: Int64, from start: Int64, probe: WorkerProbe) {
        if let watchAt = probe.beginTimed(job, dueAt: start.saturatingPlus(timeout)) { watch(probe, at: watchAt) }
    }

    /// Runs `body` in a child task at `priority`, for a job of higher priority than its worker.
    private func inChildTask(
        priority: TaskPriority, _ body: @escaping @Sendable () async throws -> any Sendable
    ) async throws -> any Sendable {
        try await withThrowingTaskGroup(of: (any Sendable).self) { group in
            group.addTask(priority: priority) { try await body() }
            guard let value = try await group.next() else { throw CancellationError() }
            return value
        }
    }

    // MARK: - Side effects

    /// Runs one event of the scheduler under the lock, sends its events (under the lock, so they
    /// keep the scheduler's order), then performs its actions. Returns what the calling worker
    /// does next, for the events that say.
    @discardableResult
    func step(_ event: (inout State) throws -> Scheduler.Actions) rethrows -> WorkerStep? {
        var spares: [(Spare, Assignment?)] = []
        let actions = try state.withLock { state in
            var actions = try event(&state)
            if state.scheduler.batchLimit > 1 { settleHeldEnds(&state, into: &actions) }
            if let events { for event in actions.events { events.yield(event) } }
            if !state.spares.isEmpty, actions.finished || !actions.spawn.isEmpty {
                spares = Self.reuseSpares(&state, &actions)
            }
            return actions
        }
        perform(actions)
        for (spare, assignment) in spares { spare.waiter.resume(returning: assignment) }
        return actions.worker
    }

    /// When a worker could start a job now, settles the ends that workers running batches hold
    /// and have not reported (see ``WorkerProbe``): their dependents may start at once. Workers
    /// hold no new ends while one could start a job (see ``saturated``), so no end is held back
    /// while its dependents could run.
    private func settleHeldEnds(_ state: inout State, into actions: inout Scheduler.Actions) {
        var couldStart = state.scheduler.couldStartJob
        if couldStart {
            for slot in state.scheduler.workers.batching where state.scheduler.mayHoldEnds(slot: slot) {
                guard slot < state.workers.count, let worker = state.workers[slot],
                    worker.generation == state.scheduler.workers[slot].generation
                else { continue }
                let ends = worker.probe.takeEnded()
                if !ends.isEmpty { actions.append(state.scheduler.settle(ends: ends)) }
            }
            couldStart = state.scheduler.couldStartJob
        }
        if saturated.load(ordering: .relaxed) == couldStart { saturated.store(!couldStart, ordering: .relaxed) }
    }

    private func perform(_ actions: Scheduler.Actions) {
        for (waiter, job) in actions.wake { waiter.resume(returning: job) }
        if !actions.cancel.isEmpty {
            let tasks = state.withLock { state in
                actions.cancel.compactMap { slot, generation in
                    slot < state.workers.count && state.workers[slot]?.generation == generation ? state.workers[slot]?.task : nil
                }
            }
            for task in tasks { task.cancel() }
        }
        for waiter in actions.resume { waiter.resume(returning: nil) }
        for (slot, generation, job, priority) in actions.spawn {
            let probe = WorkerProbe()
            let task = Task(priority: priority.taskPriority) { [self] in
                await work(slot: slot, generation: generation, first: job, probe: probe)
            }
            step { state in
                state.startedWorkers += 1
                while state.workers.count <= slot { state.workers.append(nil) }
                // The task may have run its jobs and ended before this step, and its slot gone to
                // a newer worker, registered already: that one must stay, or its cancels, its held
                // ends and its probe would be lost to the run (the batch stress test hung so).
                if state.scheduler.workers[slot].generation == generation {
                    state.workers[slot] = Worker(generation: generation, task: task, probe: probe, priority: priority)
                }
                return state.scheduler.register(slot: slot, generation: generation)
            }
        }
        if !actions.abandonLater.isEmpty { abandonAfterGrace(actions.abandonLater) }
        if actions.finished { finishRun() }
    }

    /// Jobs just cancelled: those whose bodies have not returned when the grace period passes
    /// are abandoned, so a body that ignores cancellation cannot hold the run.
    private func abandonAfterGrace(_ jobs: [Int32]) {
        let start = runTimers.withLock { timers in
            let limit = time.now().saturatingPlus(gracePeriod)
            return jobs.reduce(nil) { start, job in timers.queue.addGracePeriod(of: job, at: limit) ?? start }
        }
        if let start { startDriver(start) }
    }

    private func finishRun() {
        let duration = Duration.nanoseconds(time.now())
        let (record, stopReason) = state.withLock { (RunRecord($0.scheduler), $0.scheduler.stopReason) }
        let report = RunReport(record: record, stopReason: stopReason, duration: duration)
        if let recorder {
            // The report is delivered once the recorder has written it.
            Task { [self] in
                await recorder.runFinished(report)
                log?.detach()
                deliver(report)
            }
        } else {
            deliver(report)
        }
    }

    private func deliver(_ report: RunReport) {
        let (waiters, timers) = state.withLock { state in
            state.report = report
            defer { state.reportWaiters = []; state.timers = [] }
            return (state.reportWaiters, state.timers)
        }
        for timer in timers { timer.cancel() }
        closeTimers()
        events?.yield(.runFinished(report.status))
        events?.finish()
        for waiter in waiters { waiter.resume(returning: report) }
    }

    // MARK: - Reading

    func report() async -> RunReport {
        let delivered = await withCheckedContinuation { continuation in
            let report = state.withLock { state -> RunReport? in
                if state.report == nil { state.reportWaiters.append(continuation) }
                return state.report
            }
            if let report { continuation.resume(returning: report) }
        }
        // Read once more under the lock. A continuation resumed before its task suspended hands
        // the report over through the concurrency runtime's own atomics, which ThreadSanitizer
        // cannot see; taking the lock that `deliver` stored it under makes the hand-over plain.
        return state.withLock { $0.report } ?? delivered
    }

    func snapshot() -> RunSnapshot {
        let elapsed = Duration.nanoseconds(time.now())
        return state.withLock { $0.scheduler.snapshot(elapsed: elapsed) }
    }

    /// Keeps a task to cancel when the run ends. Returns false when the run already ended.
    func addTimer(_ task: Task<Void, Never>) -> Bool {
        state.withLock { state in
            guard state.report == nil else { return false }
            state.timers.append(task)
            return true
        }
    }

    /// Cancels the run, or one job, now.
    func cancel(_ job: Int32?) {
        let now = time.now()
        step { state in
            if let job { return state.scheduler.cancel(job, now: now) }
            return state.scheduler.cancelAll(reason: .cancelled, now: now)
        }
    }
}
