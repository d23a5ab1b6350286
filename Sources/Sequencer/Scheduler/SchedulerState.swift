import DequeModule

/// The scheduler: a value-type state machine that decides which job starts next.
///
/// It knows nothing of threads or time. Each `mutating` method records what happened and
/// returns what to do about it (``Actions``); ``RunCore`` calls it under a lock and carries out
/// the actions after releasing the lock. Invariants:
/// - a job starts only after every job it needs succeeded, and at most once;
/// - at most `maxWorkers` bodies run at once (a parent waiting for its children does not
///   count), and at most `width` jobs per lane;
/// - in an ordered lane, jobs are taken in the order they were added;
/// - every job ends in exactly one terminal phase, and the run ends when all have.
///
/// The rest of the machine lives in extensions: cancelling, timing out and abandoning jobs
/// (`SchedulerState+Cancel.swift`), child jobs (`+Children`) and coalescing (`+Coalescing`).
struct SchedulerState {
    /// Side effects for the caller to perform after releasing the lock.
    struct Actions {
        /// Parked workers to wake, each with the job it should run.
        var wake: [(CheckedContinuation<Int32, Never>, Int32)] = []
        /// New workers to start: a slot and its first job.
        var spawn: [(slot: Int, generation: UInt32, job: Int32)] = []
        /// Workers whose tasks must be cancelled (their running job was cancelled).
        var cancelWorkers: [Task<Void, Never>] = []
        /// Parents waiting for their children to resume: the children ended and the parent has
        /// a worker slot again.
        var resume: [CheckedContinuation<Void, Never>] = []
        /// Running jobs that were cancelled: abandon those still running after the grace period.
        var abandonLater: [Int32] = []
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

    /// Every job's state, packed so that the scheduler touches one cache line per job. Jobs of
    /// the plan come first, then jobs added at run time.
    var jobs: [JobState]
    var ready: ReadyQueue
    /// Entries of `ready` whose job ended while queued.
    var staleQueued = 0
    var laneUsed: [Int]
    var laneHead: [Int]
    /// Jobs waiting for a slot in an unordered lane, and children waiting in any lane.
    var laneBacklog: [Deque<Int32>]
    /// Whether an ordered lane has a job in the ready queue. An ordered lane queues one job at a
    /// time, so priorities among ready jobs cannot reorder the lane.
    var laneHasQueued: [Bool]

    // Workers: slots 0..<slotCount; a slot's job is -1 when it has none.
    var workerJob: [Int32] = []
    var workerTask: [Task<Void, Never>?] = []
    var workerProbe: [WorkerProbe?] = []
    var workerRetiring: [Bool] = []
    /// Whether the slot's job is a parent waiting for its children (its worker does not count).
    var workerSuspended: [Bool] = []
    /// Bumped each time a slot gets a new worker (or its worker is abandoned), so a late
    /// registration or a late finish cannot land on its successor.
    var workerGeneration: [UInt32] = []
    var freeSlots: [Int] = []
    var idle: [(slot: Int, continuation: CheckedContinuation<Int32, Never>)] = []
    /// Workers running a body now.
    var liveWorkers = 0

    // Outcomes (timing and attempts live in `jobs`).
    private(set) var values: [(any Sendable)?]
    var failures: [Int32: FailureRecord] = [:]
    var cancelRequested: Set<Int32> = []

    var stopReason: StopReason?
    private(set) var counts = PhaseCounts()
    private(set) var finishedCount = 0
    /// Bumped on every change a snapshot can see.
    private(set) var version: UInt64 = 0
    /// The latest time the scheduler has seen: the end of a job, or a cancellation. The times of
    /// jobs that end without a worker (sharing a coalesced result) are read from it.
    var clock: Int64 = 0
    private(set) var events: AsyncStream<RunEvent>.Continuation?
    /// Whether `events` is set: testing it does not copy (and retain) the continuation.
    private let hasEvents: Bool
    /// Whether the run is recorded: then jobs are logged as they start and end (see `RunLog`).
    let isRecorded: Bool
    var startedLog: [Int32] = []
    var finishedLog: [Int32] = []
    /// Jobs that succeeded up to date (see `JobContext.markUpToDate()`): reported as skipped.
    var upToDate: Set<Int32> = []

    // Rarely used: kept after the fields every job touches, so that those share fewer cache
    // lines (they move between cores with the lock).
    /// Running jobs whose own timeout or the run's deadline passed: when, and which it was.
    var limits: [Int32: (at: Int64, code: JobError.Code)] = [:]
    // Jobs added at run time, and coalescing.
    var dynamic = DynamicJobs()
    var groups: [Int32: ChildGroup] = [:]
    /// Waits of parents whose children ended, waiting for the parent's worker and lane slots:
    /// the parent's slot (-1 for a wait that resumes without them: another wait of its body is
    /// pending, or the parent was abandoned), and whether it holds a lane reservation.
    var resumable: [(slot: Int, continuation: CheckedContinuation<Void, Never>, reserved: Bool)] = []
    /// Per lane, the parents about to resume that need a slot in it (admission leaves it to them).
    var laneReserved: [Int]
    /// Cancellations decided while recording an outcome, performed with the next actions.
    var deferred = Actions()
    /// Each coalescing key's run, by key number; empty when no job has a key.
    var coalesced: [CoalescedRun?]
    /// The coalescing keys of the plan and of children.
    var keyIDs: [String: CoalescingKey]
    /// Set once the run has ended.
    private(set) var hasFinished = false


    var isFinished: Bool { finishedCount == jobs.count }

    init(
        plan: Plan, maxWorkers: Int, keepGoing: Bool, events: AsyncStream<RunEvent>.Continuation? = nil,
        isRecorded: Bool = false
    ) {
        self.plan = plan
        self.isRecorded = isRecorded
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
        laneReserved = [Int](repeating: 0, count: plan.lanes.count)
        values = plan.hasValues ? [(any Sendable)?](repeating: nil, count: count) : []
        keyIDs = plan.coalescingKeys
        coalesced = [CoalescedRun?](repeating: nil, count: plan.coalescingKeys.count)
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
    mutating func register(_ task: Task<Void, Never>, probe: WorkerProbe, slot: Int, generation: UInt32) -> Bool {
        guard workerGeneration[slot] == generation else {
            return false  // the worker already ended and its slot belongs to another now
        }
        workerTask[slot] = task
        workerProbe[slot] = probe
        return workerRetiring[slot]
    }

    /// A worker with nothing to run asks for a job. Returns the job, -1 to exit, or nil after
    /// keeping `continuation` to resume when a job is ready.
    mutating func park(slot: Int, _ continuation: CheckedContinuation<Int32, Never>, into actions: inout Actions) -> Int32? {
        if isFinished || workerRetiring[slot] { return retire(slot: slot) }
        if !resumable.isEmpty {
            // A parent waiting to resume takes this worker's place.
            defer { dispatch(into: &actions) }
            return retire(slot: slot)
        }
        if let job = takeReady(slot: slot) { return job }
        if !resumable.isEmpty {
            // A job taken just now ended a child (sharing a coalesced result): its parent resumes
            // in this worker's place.
            defer { dispatch(into: &actions) }
            return retire(slot: slot)
        }
        idle.append((slot, continuation))
        return nil
    }

    // MARK: - Finishing a job

    /// Records what a worker's job did, frees and queues what follows, and says what the worker
    /// does next. A worker that was abandoned (its job ended without it) just exits.
    mutating func finish(
        _ job: Int32, _ completion: Completion, slot: Int, generation: UInt32, into actions: inout Actions
    ) -> Next {
        guard workerGeneration[slot] == generation else { return .exit }
        workerJob[slot] = -1
        settle(job, completion)
        return next(forSlot: slot, into: &actions)
    }

    /// What the worker in `slot`, which has no job now, does next.
    mutating func next(forSlot slot: Int, into actions: inout Actions) -> Next {
        var next = Next.exit
        if isFinished {
            _ = retire(slot: slot)
        } else if workerRetiring[slot] || !resumable.isEmpty {
            // A parent waiting to resume takes this worker's place.
            _ = retire(slot: slot)
        } else if let job = takeReady(slot: slot) {
            next = .run(job)
        } else if !isFinished, resumable.isEmpty {
            next = .park
        } else {
            // The run ended, or a job taken just now ended a child (sharing a coalesced result)
            // and its parent resumes in this worker's place.
            _ = retire(slot: slot)
        }
        dispatch(into: &actions)
        // Taking jobs, here or in `dispatch` (for a new worker when this one retires), can end
        // the run: the jobs taken shared a finished coalesced result.
        if isFinished { finishRun(into: &actions) }
        return next
    }

    /// Records how a job ended, and what follows: its value, its lane slot, its dependents, the
    /// jobs that share its result, and its parent's count of unfinished children.
    mutating func settle(_ job: Int32, _ completion: Completion) {
        let index = Int(job)
        if completion.endedAt > clock { clock = completion.endedAt }
        if jobs[index].startedAt < 0 { jobs[index].startedAt = completion.startedAt }
        jobs[index].endedAt = completion.endedAt
        jobs[index].attempts = UInt16(clamping: completion.attempts)
        let cancelled = !cancelRequested.isEmpty && cancelRequested.remove(job) != nil
        let limit = limits.isEmpty ? nil : limits.removeValue(forKey: job)

        switch completion.result {
        case .succeeded(let value):
            succeed(job, value)
        case .threw(let error):
            if let limit {
                jobs[index].endedAt = max(jobs[index].startedAt, limit.at)
                end(job, .timedOut, FailureRecord(code: limit.code, underlying: error))
            } else if cancelled || error is CancellationError {
                end(job, .cancelled, FailureRecord(code: .cancelled, underlying: error))
            } else {
                end(job, .failed, FailureRecord(code: .failed, underlying: error))
            }
        case .timedOut:
            if let limit { jobs[index].endedAt = max(jobs[index].startedAt, limit.at) }
            end(job, .timedOut, FailureRecord(code: .timedOut))
        }
        if !coalesced.isEmpty { shareResult(of: job) }
        if !groups.isEmpty, let group = groups[job], group.unfinished > 0 {
            // An abandoned parent: its children end with it.
            var later = deferred
            cancelDescendants(of: job, now: completion.endedAt, into: &later)
            deferred = later
        }
    }

    /// Records a job's value and lets the jobs that need it go.
    mutating func succeed(_ job: Int32, _ value: any Sendable) {
        let index = Int(job)
        if hasValue(job) {
            if values.count <= index { values += [(any Sendable)?](repeating: nil, count: jobs.count - values.count) }
            values[index] = value
        }
        setPhase(job, .succeeded)
        releaseLane(of: job)
        let end = index + 1 < plan.count ? Int(jobs[index + 1].firstDependent) : plan.dependents.count
        if index < plan.count {
            for edge in Int(jobs[index].firstDependent)..<end {
                needSucceeded(plan.dependents[edge])
            }
        }
        if !dynamic.dependents.isEmpty, let added = dynamic.dependents[job] {
            for dependent in added { needSucceeded(dependent) }
        }
    }

    private mutating func needSucceeded(_ dependent: Int32) {
        jobs[Int(dependent)].remaining -= 1
        if jobs[Int(dependent)].remaining == 0, jobs[Int(dependent)].phase == .waiting {
            becomeReady(dependent)
        }
    }

    /// Ends a job that did not succeed: records why, frees its lane slot, skips its dependents,
    /// and, unless the run keeps going, stops starting jobs after a failure.
    mutating func end(_ job: Int32, _ newPhase: JobPhase, _ record: FailureRecord) {
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
        if newPhase == .failed || newPhase == .timedOut, !keepGoing, stopReason == nil {
            stopReason = .failure(job)
            endPending(code: .runStopped, phase: .skipped, cause: job)
        }
    }

    // MARK: - Readiness and lanes

    /// A job whose needs all succeeded: queue it, or let its lane decide when.
    mutating func becomeReady(_ job: Int32) {
        let lane = jobs[Int(job)].lane
        guard lane >= 0 else { return queue(job) }
        setPhase(job, .laneWaiting)
        // Children take a slot of their lane but no place in its order (they were not added
        // with the workflow): they wait in the backlog, as in an unordered lane.
        if !plan.lanes[Int(lane)].ordered || Int(job) >= plan.count { laneBacklog[Int(lane)].append(job) }
        admit(lane: Int(lane))
    }

    private mutating func queue(_ job: Int32) {
        setPhase(job, .queued)
        ready.append(job, priority: jobs[Int(job)].priority)
    }

    /// Moves jobs of `lane` into the ready queue while the lane has free slots: in an ordered
    /// lane only from the front of the lane, so a job still waiting for its needs holds its place.
    mutating func admit(lane: Int) {
        let definition = plan.lanes[lane]
        if definition.ordered {
            let members = definition.members
            while laneHead[lane] < members.count {
                let job = members[laneHead[lane]]
                let current = jobs[Int(job)].phase
                if current.isTerminal || current == .running || current == .queued {
                    laneHead[lane] += 1
                } else if current == .laneWaiting, laneUsed[lane] + laneReserved[lane] < definition.width, !laneHasQueued[lane] {
                    laneUsed[lane] += 1
                    laneHead[lane] += 1
                    laneHasQueued[lane] = true
                    queue(job)
                } else {
                    break
                }
            }
        }
        while laneUsed[lane] + laneReserved[lane] < definition.width, let job = laneBacklog[lane].popFirst() {
            guard jobs[Int(job)].phase == .laneWaiting else { continue }
            laneUsed[lane] += 1
            queue(job)
        }
    }

    /// A job of an ordered lane left the ready queue (taken or ended): the lane may queue its next.
    mutating func leftQueue(_ job: Int32) {
        let lane = jobs[Int(job)].lane
        // Children are queued from the backlog, outside the lane's order.
        guard lane >= 0, plan.lanes[Int(lane)].ordered, laneHasQueued[Int(lane)], Int(job) < plan.count else { return }
        laneHasQueued[Int(lane)] = false
        admit(lane: Int(lane))
    }

    mutating func releaseLane(of job: Int32) {
        let lane = jobs[Int(job)].lane
        guard lane >= 0 else { return }
        laneUsed[Int(lane)] -= 1
        admit(lane: Int(lane))
    }

    /// Skips every job that needs `job`, directly or not: they can never start.
    private mutating func skipDependents(of job: Int32) {
        var stack = [job]
        while let current = stack.popLast() {
            if Int(current) < plan.count {
                for edge in plan.dependentRange(of: Int(current)) {
                    skip(plan.dependents[edge], neededBy: current, into: &stack)
                }
            }
            if !dynamic.dependents.isEmpty, let added = dynamic.dependents[current] {
                for dependent in added { skip(dependent, neededBy: current, into: &stack) }
            }
        }
    }

    /// Skips `dependent`, which needs `need`, if it is still waiting; its own dependents follow.
    private mutating func skip(_ dependent: Int32, neededBy need: Int32, into stack: inout [Int32]) {
        guard jobs[Int(dependent)].phase == .waiting else { return }
        failures[dependent] = FailureRecord(code: .neededJobFailed, underlying: nil, cause: need)
        setPhase(dependent, .skipped)
        let lane = jobs[Int(dependent)].lane
        if lane >= 0 { admit(lane: Int(lane)) }
        stack.append(dependent)
    }

    // MARK: - Workers

    /// Takes the next queued job for the worker in `slot`. Jobs taken that need no worker (they
    /// share a coalesced result) are skipped; when one of them ends a child whose parent was
    /// waiting for it, this returns nil instead of taking more: the parent resumes before any
    /// new job starts (the caller gives it this worker, or a free slot).
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
            if !coalesced.isEmpty {
                let waiting = resumable.count
                if !lead(job) {  // it shares another job's body
                    if resumable.count > waiting { return nil }
                    continue
                }
            }
            workerJob[slot] = job
            return job
        }
        return nil
    }

    /// Resumes parents whose children ended, then hands queued jobs to parked workers, then to
    /// new workers, while there is room.
    mutating func dispatch(into actions: inout Actions) {
        if !resumable.isEmpty { resumeParents(into: &actions) }
        if !deferred.cancelWorkers.isEmpty || !deferred.abandonLater.isEmpty {
            actions.cancelWorkers += deferred.cancelWorkers
            actions.abandonLater += deferred.abandonLater
            deferred = Actions()
        }
        while !ready.isEmpty {
            if let (slot, continuation) = idle.popLast() {
                guard let job = takeReady(slot: slot) else {
                    idle.append((slot, continuation))
                    if !resumable.isEmpty { resumeParents(into: &actions) }  // freed by a job taken
                    continue
                }
                actions.wake.append((continuation, job))
            } else if liveWorkers < maxWorkers {
                let slot = freeSlots.popLast() ?? workerJob.count
                if slot == workerJob.count {
                    workerJob.append(-1)
                    workerTask.append(nil)
                    workerProbe.append(nil)
                    workerRetiring.append(false)
                    workerSuspended.append(false)
                    workerGeneration.append(0)
                }
                guard let job = takeReady(slot: slot) else {
                    freeSlots.append(slot)
                    if !resumable.isEmpty { resumeParents(into: &actions) }  // freed by a job taken
                    continue
                }
                liveWorkers += 1
                workerRetiring[slot] = false
                workerTask[slot] = nil
                workerProbe[slot] = nil
                workerGeneration[slot] &+= 1
                actions.spawn.append((slot, workerGeneration[slot], job))
            } else {
                break
            }
        }
        // Taking jobs can end children (sharing a coalesced result) and so free parents.
        if !resumable.isEmpty { resumeParents(into: &actions) }
    }

    /// The worker in `slot` stops: its slot becomes free. Returns -1 (the exit signal).
    mutating func retire(slot: Int) -> Int32 {
        workerJob[slot] = -1
        workerTask[slot] = nil
        workerProbe[slot] = nil
        workerRetiring[slot] = false
        liveWorkers -= 1
        freeSlots.append(slot)
        return -1
    }

    mutating func finishRun(into actions: inout Actions) {
        guard !hasFinished else { return }
        hasFinished = true
        actions.finished = true
        for (slot, continuation) in idle {
            actions.wake.append((continuation, retire(slot: slot)))
        }
        idle.removeAll()
    }

    // MARK: - Phases

    mutating func setPhase(_ job: Int32, _ newPhase: JobPhase) {
        setPhase(job, from: jobs[Int(job)].phase, to: newPhase)
    }

    private mutating func setPhase(_ job: Int32, from old: JobPhase, to newPhase: JobPhase) {
        if old == .queued, newPhase != .running { staleQueued += 1 }
        jobs[Int(job)].phase = newPhase
        counts[old] -= 1
        counts[newPhase] += 1
        if newPhase.isTerminal {
            finishedCount += 1
            if Int(job) >= plan.count { childEnded(job) }
        }
        version &+= 1
        // A job starts when a worker takes it, under the lock: from then on its body will be
        // called (seeing any cancellation that follows), so `.started` is always true, and its
        // order is the scheduler's.
        if hasEvents, let events {
            if newPhase == .running {
                events.yield(.started(id(of: job)))
            } else if newPhase.isTerminal {
                events.yield(.finished(id(of: job), status(of: job, newPhase)))
            }
        }
        // Logged under the lock, so a job's end is logged before the end of any job that needs it.
        if isRecorded {
            if newPhase == .running {
                startedLog.append(job)
            } else if newPhase.isTerminal {
                finishedLog.append(job)
            }
        }
    }

    /// Adds a job's state (a job added at run time); it starts waiting.
    mutating func appendJob(_ state: JobState) -> Int32 {
        jobs.append(state)
        counts[state.phase] += 1
        version &+= 1
        return Int32(jobs.count - 1)
    }

    /// Sets when a job started, for jobs that start without a worker reporting it.
    mutating func setStart(_ job: Int32, at time: Int64) {
        jobs[Int(job)].startedAt = time
    }

    // MARK: - Reading

    /// The jobs running now: in worker order (parents waiting for children included), then the
    /// jobs waiting for a coalesced leader.
    var runningJobs: [Int32] {
        workerJob.filter { $0 >= 0 } + joiners
    }

    func value(of job: Int32) -> (any Sendable)? {
        Int(job) < values.count ? values[Int(job)] : nil
    }
}
