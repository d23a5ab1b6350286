
/// The running half of a ``Run``: the scheduler behind a mutex, and the workers that pull
/// jobs from it.
///
/// Workers are a small pool of tasks (at most `maxConcurrency`), not a task per job. A worker
/// runs a job's body, then, under the lock, records the outcome and takes its next job in the
/// same step. Wake-ups, spawns and cancellations decided under the lock happen after it is
/// released; nothing awaits while holding it.
final class RunCore: Sendable {
    struct State {
        var scheduler: SchedulerState
        var report: RunReport?
        var reportWaiters: [CheckedContinuation<RunReport, Never>] = []
        /// Tasks to cancel when the run ends: the deadline timer and snapshot streams.
        var timers: [Task<Void, Never>] = []
    }

    let plan: Plan
    let time: any RunTime
    let state: Locked<State>
    private let hasOptions: Bool

    init(plan: Plan, options: RunOptions) {
        self.plan = plan
        time = makeRunTime(options.clock)
        hasOptions = plan.hasOptions
        state = Locked(State(scheduler: SchedulerState(
            plan: plan, maxWorkers: options.maxConcurrency, keepGoing: options.keepGoing, events: options.events)))
    }

    func begin(deadline: Duration?) {
        perform(state.withLock { $0.scheduler.begin() })
        // The timer starts after the first jobs were queued, so a deadline that has already
        // passed cancels a run that has begun; a run that already ended needs no timer.
        if let deadline {
            let timer = Task { [self] in
                do { try await time.sleep(untilOffset: deadline.nanoseconds) } catch { return }
                perform(state.withLock { $0.scheduler.cancelAll(reason: .deadline) })
            }
            if !addTimer(timer) { timer.cancel() }
        }
    }

    // MARK: - Workers

    private func work(slot: Int, first: Int32) async {
        var job = first
        while true {
            // Read after the job was taken: its needs' end times were read before they were
            // recorded under the lock, so this reading is never earlier than any of them.
            let completion = await execute(job, startedAt: time.now())
            var actions = SchedulerState.Actions()
            let next = state.withLock { $0.scheduler.finish(job, completion, slot: slot, into: &actions) }
            perform(actions)
            switch next {
            case .run(let nextJob):
                job = nextJob
            case .exit:
                return
            case .park:
                let woken = await withCheckedContinuation { continuation in
                    if let job = state.withLock({ $0.scheduler.park(slot: slot, continuation) }) {
                        continuation.resume(returning: job)
                    }
                }
                guard woken >= 0 else { return }
                job = woken
            }
        }
    }

    /// Runs a job's body with its retries and timeout, timing it.
    @inline(__always)
    private func execute(_ job: Int32, startedAt: Int64) async -> Completion {
        // The job was taken under the lock, so it starts even if its run was cancelled since:
        // its body sees the cancellation at once.
        let options = hasOptions ? plan.options(of: Int(job)) : nil
        let body = plan.bodies[Int(job)]
        // A worker's task keeps the priority of the job it was started for; a job of higher
        // priority runs in a child task at its own priority.
        let raise = plan.hasPriorities
            && plan.priority(of: Int(job)).taskPriority > (Task.basePriority ?? Task.currentPriority)
        var attempt = 1
        while true {
            let context = JobContext(job: job, attempt: attempt, core: self)
            do {
                let value: any Sendable
                if options?.timeout != nil || raise {
                    value = try await inChildTask(job, timeout: options?.timeout) { try await body.run(context) }
                } else {
                    value = try await body.run(context)
                }
                return Completion(result: .succeeded(value), attempts: attempt, startedAt: startedAt, endedAt: time.now())
            } catch is TimeoutSignal {
                return Completion(result: .timedOut, attempts: attempt, startedAt: startedAt, endedAt: time.now())
            } catch {
                let policy = options?.retry ?? .none
                if attempt < policy.maxAttempts, !(error is CancellationError), !Task.isCancelled {
                    attempt += 1
                    do {
                        try await time.sleep(for: policy.delay(beforeAttempt: attempt))
                        continue
                    } catch {
                        attempt -= 1  // the retry never started
                    }
                }
                return Completion(result: .threw(error), attempts: attempt, startedAt: startedAt, endedAt: time.now())
            }
        }
    }

    private struct TimeoutSignal: Error {}

    /// Runs `body` in a child task at the job's priority and, with a timeout, cancels it when the
    /// timeout passes on the run's clock. Waits for the body to end after cancelling it
    /// (cancellation is cooperative).
    private func inChildTask(
        _ job: Int32, timeout: Duration?, _ body: @escaping @Sendable () async throws -> any Sendable
    ) async throws -> any Sendable {
        let time = self.time
        let priority = plan.priority(of: Int(job)).taskPriority
        return try await withThrowingTaskGroup(of: (any Sendable).self) { group in
            group.addTask(priority: priority) { try await body() }
            if let timeout {
                group.addTask {
                    try await time.sleep(for: timeout)
                    throw TimeoutSignal()
                }
            }
            defer { group.cancelAll() }
            guard let value = try await group.next() else { throw CancellationError() }
            return value
        }
    }

    // MARK: - Side effects

    func perform(_ actions: SchedulerState.Actions) {
        for (continuation, job) in actions.wake { continuation.resume(returning: job) }
        for task in actions.cancelWorkers { task.cancel() }
        for (slot, generation, job) in actions.spawn {
            let task = Task(priority: plan.priority(of: Int(job)).taskPriority) { [self] in
                await work(slot: slot, first: job)
            }
            if state.withLock({ $0.scheduler.register(task, slot: slot, generation: generation) }) { task.cancel() }
        }
        if actions.finished { finishRun() }
    }

    private func finishRun() {
        let duration = Duration.nanoseconds(time.now())
        let (record, stopReason) = state.withLock { (RunRecord($0.scheduler), $0.scheduler.stopReason) }
        let report = RunReport(record: record, stopReason: stopReason, duration: duration)
        let (waiters, timers, events) = state.withLock { state in
            state.report = report
            defer { state.reportWaiters = []; state.timers = [] }
            return (state.reportWaiters, state.timers, state.scheduler.events)
        }
        for timer in timers { timer.cancel() }
        events?.yield(.runFinished(report.status))
        events?.finish()
        for waiter in waiters { waiter.resume(returning: report) }
    }

    // MARK: - Reading

    func report() async -> RunReport {
        await withCheckedContinuation { continuation in
            let report = state.withLock { state -> RunReport? in
                if state.report == nil { state.reportWaiters.append(continuation) }
                return state.report
            }
            if let report { continuation.resume(returning: report) }
        }
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

    func value(of need: Int32, for job: Int32) throws -> (any Sendable)? {
        let isNeed = plan.needRange(of: Int(job)).contains { plan.needs[$0] == need }
        guard isNeed else {
            throw WorkflowError(
                code: .notANeed,
                message: "job '\(plan.ids[Int(job)])' reads the value of '\(plan.ids[Int(need)])', which is not one of its needs",
                jobs: [plan.ids[Int(job)], plan.ids[Int(need)]])
        }
        return state.withLock { $0.scheduler.value(of: need) }
    }
}
