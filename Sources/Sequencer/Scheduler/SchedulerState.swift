import DequeModule

/// The scheduler: a value-type state machine that decides which job starts next.
///
/// It knows nothing of threads or time. Each `mutating` method records what happened and
/// returns what to do about it (``Actions``); ``RunCore`` calls it under a lock and carries out
/// the actions after releasing the lock. Invariants:
/// - a job starts only after every job it needs succeeded, and at most once;
/// - at most `maxWorkers` jobs run at once, and at most `width` per lane;
/// - in an ordered lane, jobs are taken in the order they were added;
/// - every job ends in exactly one terminal phase, and the run ends when all have.
struct SchedulerState {
    /// Side effects for the caller to perform after releasing the lock.
    struct Actions {
        /// Parked workers to wake, each with the job it should run.
        var wake: [(CheckedContinuation<Int32, Never>, Int32)] = []
        /// New workers to start: a slot and its first job.
        var spawn: [(slot: Int, generation: UInt32, job: Int32)] = []
        /// Workers whose tasks must be cancelled (their running job was cancelled).
        var cancelWorkers: [Task<Void, Never>] = []
        /// Set when this step ended the run.
        var finished = false
    }

    /// What a worker does after finishing a job.
    enum Next: Equatable {
        case run(Int32)
        case park
        case exit
    }

    let plan: Plan
    let maxWorkers: Int
    let keepGoing: Bool

    /// Every job's state, packed so that the scheduler touches one cache line per job.
    private(set) var jobs: [JobState]
    private var ready: ReadyQueue
    /// Entries of `ready` whose job ended while queued.
    private var staleQueued = 0
    private var laneUsed: [Int]
    private var laneHead: [Int]
    private var laneBacklog: [Deque<Int32>]
    /// Whether an ordered lane has a job in the ready queue. An ordered lane queues one job at a
    /// time, so priorities among ready jobs cannot reorder the lane.
    private var laneHasQueued: [Bool]

    // Workers: slots 0..<slotCount; a slot's job is -1 when it has none.
    private var workerJob: [Int32] = []
    private var workerTask: [Task<Void, Never>?] = []
    private var workerRetiring: [Bool] = []
    /// Bumped each time a slot gets a new worker, so a late registration cannot land on its successor.
    private var workerGeneration: [UInt32] = []
    private var freeSlots: [Int] = []
    private var idle: [(slot: Int, continuation: CheckedContinuation<Int32, Never>)] = []
    private var liveWorkers = 0

    // Outcomes (timing and attempts live in `jobs`).
    private(set) var values: [(any Sendable)?]
    private(set) var failures: [Int32: FailureRecord] = [:]
    private var cancelRequested: Set<Int32> = []

    private(set) var stopReason: StopReason?
    private(set) var counts = PhaseCounts()
    private(set) var finishedCount = 0
    /// Bumped on every change a snapshot can see.
    private(set) var version: UInt64 = 0
    private(set) var events: AsyncStream<RunEvent>.Continuation?
    /// Whether `events` is set: testing it does not copy (and retain) the continuation.
    private let hasEvents: Bool

    var isFinished: Bool { finishedCount == plan.count }

    init(plan: Plan, maxWorkers: Int, keepGoing: Bool, events: AsyncStream<RunEvent>.Continuation? = nil) {
        self.plan = plan
        self.maxWorkers = max(1, maxWorkers)
        self.keepGoing = keepGoing
        self.events = events
        hasEvents = events != nil
        let count = plan.count
        jobs = (0..<count).map { job in
            JobState(
                remaining: plan.needStart[job + 1] - plan.needStart[job],
                lane: plan.lane(of: job),
                firstDependent: plan.dependentStart[job],
                phase: .waiting,
                priority: plan.priority(of: job))
        }
        ready = ReadyQueue()
        laneUsed = [Int](repeating: 0, count: plan.lanes.count)
        laneHead = [Int](repeating: 0, count: plan.lanes.count)
        laneBacklog = [Deque<Int32>](repeating: [], count: plan.lanes.count)
        laneHasQueued = [Bool](repeating: false, count: plan.lanes.count)
        values = plan.hasValues ? [(any Sendable)?](repeating: nil, count: count) : []
        counts[.waiting] = count
    }

    // MARK: - Starting

    /// Queues every job that needs nothing and starts the first workers.
    mutating func begin() -> Actions {
        var actions = Actions()
        for job in 0..<plan.count where jobs[job].remaining == 0 {
            becomeReady(Int32(job))
        }
        dispatch(into: &actions)
        if isFinished { finishRun(into: &actions) }
        return actions
    }

    /// Records the task of a worker started for `slot`. Returns true when the worker's job was
    /// cancelled before the task existed, so the caller must cancel the task now.
    mutating func register(_ task: Task<Void, Never>, slot: Int, generation: UInt32) -> Bool {
        guard workerGeneration[slot] == generation else {
            return false  // the worker already ended and its slot belongs to another now
        }
        workerTask[slot] = task
        return workerRetiring[slot]
    }

    /// A worker with nothing to run asks for a job. Returns the job, -1 to exit, or nil after
    /// keeping `continuation` to resume when a job is ready.
    mutating func park(slot: Int, _ continuation: CheckedContinuation<Int32, Never>) -> Int32? {
        if isFinished || workerRetiring[slot] { return retire(slot: slot) }
        if let job = takeReady(slot: slot) { return job }
        idle.append((slot, continuation))
        return nil
    }

    // MARK: - Finishing a job

    /// Records what a worker's job did, frees and queues what follows, and says what the worker
    /// does next.
    mutating func finish(_ job: Int32, _ completion: Completion, slot: Int, into actions: inout Actions) -> Next {
        let index = Int(job)
        jobs[index].startedAt = completion.startedAt
        jobs[index].endedAt = completion.endedAt
        jobs[index].attempts = UInt16(clamping: completion.attempts)
        workerJob[slot] = -1
        let cancelled = !cancelRequested.isEmpty && cancelRequested.remove(job) != nil

        switch completion.result {
        case .succeeded(let value):
            if plan.hasValue(index) { values[index] = value }
            setPhase(job, .succeeded)
            releaseLane(of: job)
            let end = index + 1 < jobs.count ? Int(jobs[index + 1].firstDependent) : plan.dependents.count
            for edge in Int(jobs[index].firstDependent)..<end {
                let dependent = plan.dependents[edge]
                jobs[Int(dependent)].remaining -= 1
                if jobs[Int(dependent)].remaining == 0, jobs[Int(dependent)].phase == .waiting {
                    becomeReady(dependent)
                }
            }
        case .threw(let error):
            let (phase, code): (JobPhase, JobError.Code)
            if stopReason == .deadline, cancelled {
                (phase, code) = (.timedOut, .deadlineExceeded)
            } else if cancelled || error is CancellationError {
                (phase, code) = (.cancelled, .cancelled)
            } else {
                (phase, code) = (.failed, .failed)
            }
            end(job, phase, FailureRecord(code: code, underlying: error))
        case .timedOut:
            end(job, .timedOut, FailureRecord(code: .timedOut))
        }

        var next = Next.exit
        if isFinished {
            finishRun(into: &actions)
            _ = retire(slot: slot)
        } else if workerRetiring[slot] {
            _ = retire(slot: slot)
        } else if let job = takeReady(slot: slot) {
            next = .run(job)
        } else {
            next = .park
        }
        dispatch(into: &actions)
        return next
    }

    /// Ends a job that did not succeed: records why, frees its lane slot, skips its dependents,
    /// and, unless the run keeps going, stops starting jobs after a failure.
    private mutating func end(_ job: Int32, _ newPhase: JobPhase, _ record: FailureRecord) {
        let old = jobs[Int(job)].phase
        failures[job] = record
        setPhase(job, newPhase)
        if old == .queued { leftQueue(job) }
        if old == .queued || old == .running {
            releaseLane(of: job)
        } else if jobs[Int(job)].lane >= 0 {
            admit(lane: Int(jobs[Int(job)].lane))  // it no longer holds its place
        }
        skipDependents(of: job)
        if (newPhase == .failed || newPhase == .timedOut), !keepGoing, stopReason == nil {
            stopReason = .failure(job)
            endPending(code: .runStopped, phase: .skipped, cause: job)
        }
    }

    // MARK: - Cancelling

    /// Cancels the whole run: nothing more starts, and every running job's worker is cancelled.
    mutating func cancelAll(reason: StopReason) -> Actions {
        var actions = Actions()
        guard !isFinished else { return actions }
        if stopReason == nil || reason == .deadline { stopReason = reason }
        let code: JobError.Code = reason == .deadline ? .deadlineExceeded : .cancelled
        endPending(code: code, phase: .cancelled, cause: -1)
        for slot in workerJob.indices where workerJob[slot] >= 0 {
            cancelRequested.insert(workerJob[slot])
            workerRetiring[slot] = true
            if let task = workerTask[slot] { actions.cancelWorkers.append(task) }
        }
        if isFinished { finishRun(into: &actions) }
        return actions
    }

    /// Cancels one job: if it has not started it never will, and its dependents are skipped;
    /// if it is running, its worker is cancelled. A finished job is left as it is.
    mutating func cancel(_ job: Int32) -> Actions {
        var actions = Actions()
        guard !isFinished else { return actions }
        switch jobs[Int(job)].phase {
        case .waiting, .laneWaiting, .queued:
            end(job, .cancelled, FailureRecord(code: .cancelled))
        case .running:
            cancelRequested.insert(job)
            if let slot = workerJob.firstIndex(of: job) {
                workerRetiring[slot] = true
                if let task = workerTask[slot] { actions.cancelWorkers.append(task) }
            }
        default:
            break
        }
        dispatch(into: &actions)
        if isFinished { finishRun(into: &actions) }
        return actions
    }

    /// Ends every job that has not started.
    private mutating func endPending(code: JobError.Code, phase newPhase: JobPhase, cause: Int32) {
        for job in 0..<plan.count where jobs[job].phase.isPending {
            let job = Int32(job)
            failures[job] = FailureRecord(code: code, underlying: nil, cause: cause)
            setPhase(job, newPhase)
        }
        for lane in laneUsed.indices {
            laneUsed[lane] = 0
            laneHasQueued[lane] = false
        }
        for slot in workerJob.indices where workerJob[slot] >= 0 {
            let lane = jobs[Int(workerJob[slot])].lane
            if lane >= 0 { laneUsed[Int(lane)] += 1 }
        }
    }

    // MARK: - Readiness and lanes

    /// A job whose needs all succeeded: queue it, or let its lane decide when.
    private mutating func becomeReady(_ job: Int32) {
        let lane = jobs[Int(job)].lane
        guard lane >= 0 else { return queue(job) }
        setPhase(job, .laneWaiting)
        if !plan.lanes[Int(lane)].ordered { laneBacklog[Int(lane)].append(job) }
        admit(lane: Int(lane))
    }

    private mutating func queue(_ job: Int32) {
        setPhase(job, .queued)
        ready.append(job, priority: jobs[Int(job)].priority)
    }

    /// Moves jobs of `lane` into the ready queue while the lane has free slots: in an ordered
    /// lane only from the front of the lane, so a job still waiting for its needs holds its place.
    private mutating func admit(lane: Int) {
        let definition = plan.lanes[lane]
        if definition.ordered {
            let members = definition.members
            while laneHead[lane] < members.count {
                let job = members[laneHead[lane]]
                let current = jobs[Int(job)].phase
                if current.isTerminal || current == .running || current == .queued {
                    laneHead[lane] += 1
                } else if current == .laneWaiting, laneUsed[lane] < definition.width, !laneHasQueued[lane] {
                    laneUsed[lane] += 1
                    laneHead[lane] += 1
                    laneHasQueued[lane] = true
                    queue(job)
                } else {
                    break
                }
            }
        } else {
            while laneUsed[lane] < definition.width, let job = laneBacklog[lane].popFirst() {
                guard jobs[Int(job)].phase == .laneWaiting else { continue }
                laneUsed[lane] += 1
                queue(job)
            }
        }
    }

    /// A job of an ordered lane left the ready queue (taken or ended): the lane may queue its next.
    private mutating func leftQueue(_ job: Int32) {
        let lane = jobs[Int(job)].lane
        guard lane >= 0, plan.lanes[Int(lane)].ordered, laneHasQueued[Int(lane)] else { return }
        laneHasQueued[Int(lane)] = false
        admit(lane: Int(lane))
    }

    private mutating func releaseLane(of job: Int32) {
        let lane = jobs[Int(job)].lane
        guard lane >= 0 else { return }
        laneUsed[Int(lane)] -= 1
        admit(lane: Int(lane))
    }

    /// Skips every job that needs `job`, directly or not: they can never start.
    private mutating func skipDependents(of job: Int32) {
        var stack = [job]
        while let current = stack.popLast() {
            for edge in plan.dependentRange(of: Int(current)) {
                let dependent = plan.dependents[edge]
                guard jobs[Int(dependent)].phase == .waiting else { continue }
                failures[dependent] = FailureRecord(code: .neededJobFailed, underlying: nil, cause: current)
                setPhase(dependent, .skipped)
                let lane = jobs[Int(dependent)].lane
                if lane >= 0 { admit(lane: Int(lane)) }
                stack.append(dependent)
            }
        }
    }

    // MARK: - Workers

    /// Takes the next queued job for the worker in `slot`.
    private mutating func takeReady(slot: Int) -> Int32? {
        while let job = ready.popFirst() {
            // Jobs ended while queued stay in the queue until popped. While there are none, the
            // job's phase need not be read: one cache miss less under the lock.
            if staleQueued > 0, jobs[Int(job)].phase != .queued {
                staleQueued -= 1
                continue
            }
            setPhase(job, from: .queued, to: .running)
            if !plan.lanes.isEmpty { leftQueue(job) }
            workerJob[slot] = job
            return job
        }
        return nil
    }

    /// Hands queued jobs to parked workers, then to new workers while there is room.
    private mutating func dispatch(into actions: inout Actions) {
        while !ready.isEmpty {
            if let (slot, continuation) = idle.popLast() {
                guard let job = takeReady(slot: slot) else { idle.append((slot, continuation)); break }
                actions.wake.append((continuation, job))
            } else if liveWorkers < maxWorkers {
                let slot = freeSlots.popLast() ?? workerJob.count
                if slot == workerJob.count {
                    workerJob.append(-1)
                    workerTask.append(nil)
                    workerRetiring.append(false)
                    workerGeneration.append(0)
                }
                guard let job = takeReady(slot: slot) else { freeSlots.append(slot); break }
                liveWorkers += 1
                workerRetiring[slot] = false
                workerTask[slot] = nil
                workerGeneration[slot] &+= 1
                actions.spawn.append((slot, workerGeneration[slot], job))
            } else {
                break
            }
        }
    }

    /// The worker in `slot` stops: its slot becomes free. Returns -1 (the exit signal).
    private mutating func retire(slot: Int) -> Int32 {
        workerJob[slot] = -1
        workerTask[slot] = nil
        workerRetiring[slot] = false
        liveWorkers -= 1
        freeSlots.append(slot)
        return -1
    }

    private mutating func finishRun(into actions: inout Actions) {
        actions.finished = true
        for (slot, continuation) in idle {
            actions.wake.append((continuation, retire(slot: slot)))
        }
        idle.removeAll()
    }

    // MARK: - Reading

    private mutating func setPhase(_ job: Int32, _ newPhase: JobPhase) {
        setPhase(job, from: jobs[Int(job)].phase, to: newPhase)
    }

    private mutating func setPhase(_ job: Int32, from old: JobPhase, to newPhase: JobPhase) {
        if old == .queued, newPhase != .running { staleQueued += 1 }
        jobs[Int(job)].phase = newPhase
        counts[old] -= 1
        counts[newPhase] += 1
        if newPhase.isTerminal { finishedCount += 1 }
        version &+= 1
        // A job starts when a worker takes it, under the lock: from then on its body will be
        // called (seeing any cancellation that follows), so `.started` is always true, and its
        // order is the scheduler's.
        if hasEvents, let events {
            if newPhase == .running {
                events.yield(.started(plan.ids[Int(job)]))
            } else if newPhase.isTerminal {
                events.yield(.finished(plan.ids[Int(job)], newPhase.status))
            }
        }
    }

    /// The jobs running now, in worker order.
    var runningJobs: [Int32] { workerJob.filter { $0 >= 0 } }

    func value(of job: Int32) -> (any Sendable)? {
        values.isEmpty ? nil : values[Int(job)]
    }
}
