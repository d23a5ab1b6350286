/// The scheduler: a value-type state machine that decides which job starts next.
///
/// It knows nothing of threads, tasks or time. Each event is a `mutating` method that records
/// what happened and returns what to do about it (``SchedulerActions``); ``RunCore`` calls it
/// under a lock and carries out the actions after releasing the lock. It is made of parts that
/// own their state: the job table (``JobTable``), the ready queue (``ReadyQueue``), the lanes
/// (``Lane``), the worker slots (``WorkerSlots``), child jobs (``ChildGroups``) and coalescing
/// (``Coalescing``). Invariants, checked after every step by the step tests:
/// - a job starts only after every job it needs succeeded, and at most once;
/// - at most `maxConcurrency` bodies run at once (a parent waiting for its children does not
///   count), and at most `width` jobs hold a slot of a lane;
/// - in an ordered lane, jobs are taken in the order they were added;
/// - every job ends in exactly one terminal phase, and the run ends when all have.
///
/// The rest of the machine lives in extensions: cancelling, timing out and abandoning jobs
/// (`SchedulerState+Cancel.swift`), child jobs (`+Children`) and coalescing (`+Coalescing`).
struct SchedulerState<Waiter> {
    typealias Actions = SchedulerActions<Waiter>

    let plan: Plan
    let keepGoing: Bool

    // The parts.
    var jobs: JobTable
    /// How many of each job's needs have not succeeded yet, by job number (a window beside
    /// `jobs`, appended and dropped with it): 4 bytes a job, so that releasing dependents
    /// spread over a large run stays within the processor's cache.
    var unmetNeeds: Window<Int32>
    var ready = ReadyQueue()
    var lanes: [Lane]
    var workers: WorkerSlots<Waiter>
    var added: AddedJobs
    var groups = ChildGroups<Waiter>()
    var coalescing: Coalescing

    // Outcomes (timing and attempts live in `jobs`).
    private(set) var values: [(any Sendable)?]
    var failures: [Int32: FailureRecord] = [:]
    var cancelRequested: Set<Int32> = []
    /// Jobs that succeeded up to date (see `JobContext.markUpToDate()`).
    var upToDate: Set<Int32> = []

    var stopReason: StopReason?
    /// How many jobs are in each phase, counting every job the run ever had.
    private(set) var counts = PhaseCounts()
    /// How many jobs have not ended.
    private(set) var unfinished: Int
    /// Whether jobs may still be added from outside: a queue until it is closed.
    var isOpen: Bool
    /// How many finished jobs a queue keeps beyond those still needed (see `forgetFinished()`);
    /// nil for a run, which keeps every job.
    let keepFinished: Int?
    /// Callers waiting for a job to end (a queue's `value(of:)`), by job.
    var watchers: [Int32: [Waiter]] = [:]
    /// Bumped on every change a snapshot can see.
    private(set) var version: UInt64 = 0
    /// The latest time the scheduler has seen: the end of a job, or a cancellation. The times of
    /// jobs that end without a worker (sharing a coalesced result) are read from it.
    var clock: Int64 = 0
    /// Whether events are sent: then each start and end is added to the actions.
    let sendsEvents: Bool
    /// Whether the run is recorded: then jobs are logged as they start and end (see `RunLog`).
    let isRecorded: Bool
    /// The most jobs a worker takes in one step (see `SchedulerState+Batches.swift`); 1 takes
    /// them one at a time.
    let batchLimit: Int
    /// False once a job of a batch added a child: the run takes one job at a time from then on
    /// (see `SchedulerState+Batches.swift`).
    var takesBatches = true
    var startedLog: [Int32] = []
    var finishedLog: [Int32] = []
    /// Running jobs whose own timeout or the run's deadline passed: when, and which it was.
    var limits: [Int32: (at: Int64, code: JobError.Code)] = [:]
    /// What the current event decided so far; handed out by ``flush()``.
    var outbox = Actions()
    /// Set once the run has ended.
    private(set) var hasFinished = false

    /// Whether every job has ended and no more can come.
    var isFinished: Bool { unfinished == 0 && !isOpen }

    /// A scheduler for `plan`; with `keepFinished`, a queue: it stays open for jobs added from
    /// outside until ``close()``, and forgets finished jobs beyond that many.
    init(
        plan: Plan, maxWorkers: Int, keepGoing: Bool, sendsEvents: Bool = false, isRecorded: Bool = false,
        keepFinished: Int? = nil, readyOrder: RunOptions.ReadyOrder = .firstReady, batchLimit: Int = 1
    ) {
        self.plan = plan
        self.batchLimit = max(1, min(batchLimit, 0xFFFF))
        ready = ReadyQueue(firstAdded: readyOrder == .firstAdded)
        self.keepFinished = keepFinished
        isOpen = keepFinished != nil
        unfinished = plan.count
        self.isRecorded = isRecorded
        self.keepGoing = keepGoing
        self.sendsEvents = sendsEvents
        workers = WorkerSlots(limit: maxWorkers)
        let count = plan.count
        jobs = JobTable((0..<count).map { job in
            JobState(
                lane: plan.lane(of: job).map { Int($0) },
                dependents: plan.dependentStart[job]..<plan.dependentStart[job + 1],
                priority: plan.priority(of: job))
        })
        unmetNeeds = Window((0..<count).map { plan.needStart[$0 + 1] - plan.needStart[$0] })
        lanes = plan.lanes.map { Lane(name: $0.name, width: $0.width, ordered: $0.ordered, members: $0.members) }
        added = AddedJobs(first: count)
        values = plan.hasValues ? [(any Sendable)?](repeating: nil, count: count) : []
        coalescing = Coalescing(keys: plan.keys)
        counts[.waiting] = count
    }

    // MARK: - Events

    /// Queues every job that needs nothing and starts the first workers.
    mutating func begin() -> Actions {
        for job in jobs.numbers where unmetNeeds[job] == 0 {
            becomeReady(job)
        }
        return flush()
    }

    /// A worker started for `slot` has its task now. When its job was cancelled before the task
    /// existed, the actions cancel it.
    mutating func register(slot: Int, generation: UInt32) -> Actions {
        // A worker that already ended leaves its slot to another: nothing to cancel then.
        if workers[slot].generation == generation, workers[slot].retiring {
            outbox.cancel.append((slot, generation))
        }
        return flush()
    }

    /// A worker with nothing to run asks for a job: it runs one, exits, or parks (its `waiter`
    /// is kept, to wake when a job is ready).
    mutating func park(slot: Int, _ waiter: Waiter) -> Actions {
        var step = WorkerStep.exit
        if isFinished || workers[slot].retiring || groups.hasResumable {
            // A parent waiting to resume takes this worker's place.
            workers.retire(slot)
        } else if let job = takeBatch(slot: slot) {
            step = .run(job)
        } else if groups.hasResumable {
            // A job taken just now ended a child (sharing a coalesced result): its parent
            // resumes in this worker's place.
            workers.retire(slot)
        } else {
            workers.idle.append((slot, waiter))
            step = .park
        }
        outbox.worker = step
        return flush()
    }

    /// Records what a worker's job did, frees and queues what follows, and says what the worker
    /// does next. A worker that was abandoned (its job ended without it) just exits. `earlier`
    /// are the ends of the jobs of its batch it ran before `job`, in order.
    mutating func finish(
        _ job: Int32, _ completion: Completion, earlier: [(job: Int32, completion: Completion)] = [], slot: Int, generation: UInt32
    ) -> Actions {
        guard workers[slot].generation == generation else {
            // The job ended without this worker, which is done with its body now. The jobs of
            // its batch before it ended when it was abandoned.
            releaseBody(of: job)
            outbox.worker = .exit
            return flush()
        }
        closeBatch(of: slot)  // gives back the jobs it did not begin
        workers[slot].job = nil
        workers.endBatch(slot)
        settleHeld(earlier)
        settle(job, completion)
        releaseBody(of: job)
        var step = WorkerStep.exit
        if isFinished || workers[slot].retiring || groups.hasResumable {
            // A parent waiting to resume takes this worker's place.
            workers.retire(slot)
        } else if let next = takeBatch(slot: slot) {
            step = .run(next)
        } else if !isFinished, !groups.hasResumable {
            step = .park
        } else {
            // The run ended, or a job taken just now ended a child (sharing a coalesced
            // result) and its parent resumes in this worker's place.
            workers.retire(slot)
        }
        outbox.worker = step
        return flush()
    }

    /// Ends an event: hands queued jobs to workers, ends the run when every job has ended, and
    /// returns everything decided.
    mutating func flush() -> Actions {
        dispatch()
        // Taking jobs in `dispatch` can end the run: the jobs taken shared a finished coalesced
        // result.
        if isFinished, !hasFinished { finishRun() }
        if keepFinished != nil { forgetFinished() }
        var actions = Actions()
        swap(&actions, &outbox)
        return actions
    }

    // MARK: - Recording outcomes

    /// Records how a job ended, and what follows: its value, its lane slot, its dependents, the
    /// jobs that share its result, and its parent's count of unfinished children.
    mutating func settle(_ job: Int32, _ completion: Completion) {
        if completion.endedAt > clock { clock = completion.endedAt }
        if jobs[job].startedAt == nil { jobs[job].startedAt = completion.startedAt }
        jobs[job].endedAt = completion.endedAt
        jobs[job].attempts = UInt16(clamping: completion.attempts)
        let cancelled = !cancelRequested.isEmpty && cancelRequested.remove(job) != nil
        let limit = limits.isEmpty ? nil : limits.removeValue(forKey: job)

        switch completion.result {
        case .succeeded(let value):
            succeed(job, value)
        case .threw(let error):
            if let limit {
                jobs[job].endedAt = max(jobs[job].startedAt ?? 0, limit.at)
                end(job, .timedOut, FailureRecord(code: limit.code, underlying: error))
            } else if cancelled || error is CancellationError {
                end(job, .cancelled, FailureRecord(code: .cancelled, underlying: error))
            } else {
                end(job, .failed, FailureRecord(code: .failed, underlying: error))
            }
        case .timedOut:
            if let limit { jobs[job].endedAt = max(jobs[job].startedAt ?? 0, limit.at) }
            end(job, .timedOut, FailureRecord(code: .timedOut))
        }
        if !coalescing.isEmpty { shareResult(of: job) }
        if !groups.isEmpty, groups.hasUnfinished(job) {
            // An abandoned parent: its children end with it.
            cancelDescendants(of: job, now: completion.endedAt)
        }
    }

    /// Records a job's value and lets the jobs that need it go.
    mutating func succeed(_ job: Int32, _ value: any Sendable) {
        let index = Int(job)
        if hasValue(job) {
            if isPlanned(job) {
                values[index] = value
            } else {
                added.values[job] = value
            }
        }
        setPhase(job, .succeeded)
        releaseLane(of: job)
        for edge in jobs[job].dependentEdges {
            needSucceeded(plan.dependents[edge])
        }
        if !added.dependents.isEmpty, let dependents = added.dependents.removeValue(forKey: job) {
            for dependent in dependents { needSucceeded(dependent) }
        }
    }

    private mutating func needSucceeded(_ dependent: Int32) {
        unmetNeeds[dependent] -= 1
        if unmetNeeds[dependent] == 0, jobs[dependent].phase == .waiting {
            becomeReady(dependent)
        }
    }

    /// Ends a job that did not succeed: records why, frees its lane slot, skips its dependents,
    /// and, unless the run keeps going, stops starting jobs after a failure.
    mutating func end(_ job: Int32, _ newPhase: JobPhase, _ record: FailureRecord) {
        let old = jobs[job].phase
        failures[job] = record
        setPhase(job, newPhase)
        if old == .queued { leftQueue(job) }
        if old == .queued || old == .running {
            releaseLane(of: job)
        } else if let lane = jobs[job].lane {
            admit(lane: lane)  // it no longer holds its place
        }
        skipDependents(of: job)
        // A coalesced leader a closed batch gave back, ended before it began: its joiners too.
        if old == .queued, !coalescing.isEmpty { shareResult(of: job) }
        if newPhase == .failed || newPhase == .timedOut, !keepGoing, stopReason == nil {
            stopReason = .failure(job)
            endPending(code: .runStopped, phase: .skipped, cause: job)
        }
    }

    /// Skips every job that needs `job`, directly or not: they can never start.
    private mutating func skipDependents(of job: Int32) {
        var stack = [job]
        while let current = stack.popLast() {
            for edge in jobs[current].dependentEdges {
                skip(plan.dependents[edge], neededBy: current, into: &stack)
            }
            if !added.dependents.isEmpty, let dependents = added.dependents.removeValue(forKey: current) {
                for dependent in dependents { skip(dependent, neededBy: current, into: &stack) }
            }
        }
    }

    /// Skips `dependent`, which needs `need`, if it is still waiting; its own dependents follow.
    private mutating func skip(_ dependent: Int32, neededBy need: Int32, into stack: inout [Int32]) {
        guard jobs[dependent].phase == .waiting else { return }
        failures[dependent] = FailureRecord(code: .neededJobFailed, underlying: nil, cause: need)
        setPhase(dependent, .skipped)
        if let lane = jobs[dependent].lane { admit(lane: lane) }
        stack.append(dependent)
    }

    // MARK: - Readiness and lanes

    /// A job whose needs all succeeded: queue it, or let its lane decide when.
    mutating func becomeReady(_ job: Int32) {
        guard let lane = jobs[job].lane else { return queue(job) }
        setPhase(job, .laneWaiting)
        // Children take a slot of their lane but no place in its order (they were not added
        // with the workflow): they wait in the backlog, as in an unordered lane.
        lanes[lane].wait(job, inOrder: !isChild(job))
        admit(lane: lane)
    }

    private mutating func queue(_ job: Int32) {
        setPhase(job, .queued)
        ready.append(job, priority: jobs[job].priority, child: isChild(job))
    }

    /// Moves jobs of `lane` into the ready queue while it has free slots.
    mutating func admit(lane: Int) {
        while let job = lanes[lane].admitNext(jobs) { queue(job) }
    }

    /// A job of an ordered lane left the ready queue (taken or ended): the lane may queue its next.
    mutating func leftQueue(_ job: Int32) {
        // Children are queued from the backlog, outside the lane's order.
        guard let lane = jobs[job].lane, lanes[lane].ordered, lanes[lane].hasQueued, !isChild(job) else { return }
        lanes[lane].leftQueue()
        admit(lane: lane)
    }

    mutating func releaseLane(of job: Int32) {
        guard let lane = jobs[job].lane else { return }
        lanes[lane].release()
        admit(lane: lane)
    }

    // MARK: - Workers

    /// Takes the next queued job for the worker in `slot`. Jobs taken that need no worker (they
    /// share a coalesced result) are skipped; when one of them ends a child whose parent was
    /// waiting for it, this returns nil instead of taking more: the parent resumes before any
    /// new job starts (the caller gives it this worker, or a free slot).
    mutating func takeReady(slot: Int) -> Int32? {
        while let job = ready.popLive(jobs) {
            setPhase(job, from: .queued, to: .running)
            if !lanes.isEmpty { leftQueue(job) }
            if !coalescing.isEmpty {
                let waiting = groups.resumable.count
                if !lead(job) {  // it shares another job's body
                    if groups.resumable.count > waiting { return nil }
                    continue
                }
            }
            workers[slot].job = job
            return job
        }
        return nil
    }

    /// Resumes parents whose children ended, then hands queued jobs to parked workers, then to
    /// new workers, while there is room.
    mutating func dispatch() {
        if groups.hasResumable { resumeParents() }
        while !ready.isEmpty {
            if let (slot, waiter) = workers.idle.popLast() {
                guard let job = takeReady(slot: slot) else {
                    workers.idle.append((slot, waiter))
                    if groups.hasResumable { resumeParents() }  // freed by a job taken
                    continue
                }
                outbox.wake.append((waiter, job))
            } else if workers.hasRoom {
                let slot = workers.open()
                guard let job = takeReady(slot: slot) else {
                    workers.unopen(slot)
                    if groups.hasResumable { resumeParents() }  // freed by a job taken
                    continue
                }
                let priority = isPlanned(job) ? plan.priority(of: Int(job)) : jobs[job].priority
                outbox.spawn.append((slot, workers[slot].generation, job, priority))
            } else {
                break
            }
        }
        // Taking jobs can end children (sharing a coalesced result) and so free parents.
        if groups.hasResumable { resumeParents() }
    }

    private mutating func finishRun() {
        hasFinished = true
        outbox.finished = true
        for (slot, waiter) in workers.idle {
            workers.retire(slot)
            outbox.wake.append((waiter, nil))
        }
        workers.idle.removeAll()
    }

    // MARK: - Phases

    /// Lets go of the body of an added job (a child, or a queue's job) once no worker will
    /// run it: it ended before a worker took it, its worker reported, or it joined a coalesced
    /// leader. A queue keeps its finished jobs a while, and their bodies would keep what they
    /// captured, often the object that owns the queue, alive with them. The caller drops the
    /// body after the lock. A plan's bodies stay with the plan, which a finished run's report
    /// keeps without them.
    mutating func releaseBody(of job: Int32) {
        guard !isPlanned(job), jobs.contains(job) else { return }
        var body: any JobBody = EndedJobBody()
        swap(&body, &added[job].body)
        outbox.released.append(body)
    }

    mutating func setPhase(_ job: Int32, _ newPhase: JobPhase) {
        setPhase(job, from: jobs[job].phase, to: newPhase)
    }

    mutating func setPhase(_ job: Int32, from old: JobPhase, to newPhase: JobPhase) {
        if old == .queued, newPhase != .running { ready.markStale() }
        jobs[job].phase = newPhase
        counts[old] -= 1
        counts[newPhase] += 1
        if newPhase.isTerminal {
            unfinished -= 1
            // A running job's worker may not have read its body yet: `finish` lets go of it.
            if old != .running { releaseBody(of: job) }
            if isChild(job) { childEnded(job) }
            if keepFinished != nil { endedInQueue(job) }
            if !watchers.isEmpty, let waiting = watchers.removeValue(forKey: job) { outbox.resume += waiting }
        }
        version &+= 1
        // A job starts when a worker takes it, under the lock: from then on its body will be
        // called (seeing any cancellation that follows), so `.started` is always true, and its
        // order is the scheduler's.
        if sendsEvents {
            if newPhase == .running {
                outbox.events.append(.started(id(of: job)))
            } else if newPhase.isTerminal {
                outbox.events.append(.finished(id(of: job), status(of: job, newPhase)))
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
        counts[state.phase] += 1
        unfinished += 1
        version &+= 1
        unmetNeeds.append(0)
        return jobs.append(state)
    }

    // MARK: - Reading

    /// Whether `job` is one of the plan's jobs (not added while the run runs).
    func isPlanned(_ job: Int32) -> Bool { plan.contains(job) }

    /// The jobs running now: in worker order (parents waiting for children included), then the
    /// jobs waiting for a coalesced leader.
    var runningJobs: [Int32] {
        workers.jobs + joiners
    }

    func value(of job: Int32) -> (any Sendable)? {
        guard !isPlanned(job) else { return Int(job) < values.count ? values[Int(job)] : nil }
        return jobs.contains(job) ? added.values[job] : nil
    }
}

// Generic types are not inferred `Sendable`.
extension SchedulerState: Sendable where Waiter: Sendable {}
