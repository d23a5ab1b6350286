@testable import Sequencer
import Testing

/// Drives a ``SchedulerState`` directly, one event at a time, with no tasks, clocks or gates,
/// and keeps a model of the workers its actions imply: which slot runs which job, which workers
/// are parked, which parents wait for their children. Each event is checked against the
/// scheduler's invariants (`StepInvariants.swift`); a broken one is recorded as an issue with
/// the steps that led to it.
///
/// Jobs are named by ID; bodies are never called. A waiter is a number: a parked worker's is its
/// slot, a parent's wait gets the next free number.
struct StepDriver {
    typealias Scheduler = SchedulerState<Int>

    /// How a body ends; `timedOut` is what a worker reports when the job's timer fired first.
    enum Outcome { case succeeded, failed, cancelled, timedOut }

    /// A worker task, as the actions imply it.
    struct Worker {
        enum State { case running, parking, parked }
        var slot: Int
        var generation: UInt32
        /// The job whose body it runs; nil while it parks.
        var job: Int32?
        var state = State.running
        /// Set when the scheduler cancelled its task.
        var cancelled = false
        /// Its body's waits for children that have not resumed, by waiter number.
        var waits: [Int] = []
        /// Whether its body is blocked on those waits (else it goes on, as after `async let`).
        var blocked = false
        /// Its body returned and waits for its children: what the worker reports when they ended.
        var settling: Completion?
        var began: Int64 = 0
        /// Whether the run knows its task (see ``SchedulerState/register(slot:generation:)``):
        /// until then, cancelling it does nothing.
        var registered = false
        /// The jobs of the batch it took (the first included) and the position of the next; empty
        /// when it took one job.
        var batch: [Int32] = []
        var position = 0
        /// The ends of its batch's jobs it ran and has not reported.
        var ended: [(job: Int32, completion: Completion)] = []
    }

    private(set) var scheduler: Scheduler
    /// The workers the scheduler has, by slot (changed by events, and by `StepDriver+Batches.swift`).
    var workers: [Int: Worker] = [:]
    /// Workers whose jobs were abandoned: what they report is ignored.
    private(set) var detached: [Worker] = []
    /// Running jobs cancelled: the run abandons them if they have not ended after a grace period.
    private(set) var graceList: [Int32] = []
    /// The jobs given to workers, in order.
    private(set) var started: [Int32] = []
    /// How many times the scheduler said the run ended.
    private(set) var finishedCount = 0
    /// What the last event decided (spawns of workers it started included, not their registration).
    private(set) var last = Scheduler.Actions()
    /// Every event so far, for the report of a broken invariant.
    private(set) var log: [String] = []
    private(set) var problems: [String] = []
    /// Whether a worker told to park parks at once (else ``park(slot:)`` does it).
    var parksAtOnce = true
    /// Whether a new worker's task is registered at once (else ``register(slot:)`` does it).
    var registersAtOnce = true
    private(set) var now: Int64 = 0
    private var waitOwners: [Int: (slot: Int, generation: UInt32)] = [:]
    /// The number of the next waiter a body's wait or a queue's caller gets.
    var nextWaiter = 0
    private var settled: [Worker] = []
    /// The slot of the worker that reports the current event (a finish or a park).
    private var reporter: Int?
    /// Each job's phase after the last step, by number.
    var phasesSeen: [Int32: JobPhase] = [:]
    private(set) var hasBegun = false
    // A queue's callers and jobs, written by the queue's events only (`StepDriver+Queue.swift`).
    /// Callers waiting for a job to end (``watch(_:)``), by waiter number.
    var watching: [Int: Int32] = [:]
    /// Jobs whose watchers were resumed and have not read them yet (``doneReading(_:)``).
    var reads: [Int32] = []
    /// Jobs added from outside (``add(_:needs:lane:priority:coalesce:)``), with the ticket each
    /// outcome goes to, in the order they were added.
    var queued: [(job: Int32, id: JobID, lane: String?, ticket: JobTicket)] = []

    /// A run of `workflow`; with `batchLimit`, workers take up to that many jobs in one step (see
    /// `SchedulerState+Batches.swift`).
    init(_ workflow: Workflow, maxConcurrency: Int = 1, keepGoing: Bool = false, batchLimit: Int = 1) throws {
        scheduler = Scheduler(plan: try Plan(workflow), maxWorkers: maxConcurrency, keepGoing: keepGoing, batchLimit: batchLimit)
    }

    /// A queue: open, with no jobs, keeping `keepFinished` finished jobs beyond those still needed.
    init(queueOf maxConcurrency: Int, keepFinished: Int) {
        scheduler = Scheduler(plan: Plan.empty, maxWorkers: maxConcurrency, keepGoing: true, keepFinished: keepFinished)
    }

    // MARK: - Events

    mutating func begin() {
        hasBegun = true
        step("begin") { $0.begin() }
    }

    /// The body of `name` returns. A body with unfinished children first waits for them (after
    /// cancelling them, when it failed), as a worker does; it is reported when they have ended.
    mutating func finish(_ name: JobID, _ outcome: Outcome = .succeeded) {
        guard let job = number(name), let slot = slot(running: job) else {
            return problem("finish \(name): no worker runs it")
        }
        let result: Completion.Result =
            switch outcome {
            case .succeeded: .succeeded(())
            case .failed: .threw(StepFailure())
            case .cancelled: .threw(CancellationError())
            case .timedOut: .timedOut
            }
        guard workers[slot]?.waits.isEmpty == true else { return problem("finish \(name): its body still waits") }
        tick()
        let completion = Completion(result: result, attempts: 1, startedAt: workers[slot]?.began ?? 0, endedAt: now)
        let (generation, time) = (workers[slot]?.generation ?? 0, now)
        guard scheduler.hasUnfinishedChildren(job) else {
            reporter = slot
            let earlier = workers[slot]?.ended ?? []
            workers[slot]?.ended = []
            workers[slot]?.batch = []
            let held = earlier.isEmpty ? "" : " (with the ends of \(earlier.map { scheduler.id(of: $0.job).description }))"
            return step("finish \(name) \(outcome)\(held)") {
                $0.finish(job, completion, earlier: earlier, slot: slot, generation: generation)
            }
        }
        if outcome != .succeeded {
            step("\(name) failed: cancel its children") { $0.cancelChildren(of: job, now: time) }
        }
        workers[slot]?.settling = completion
        wait(name, blocking: true)
    }

    /// The task of the new worker in `slot` is registered with the run.
    mutating func register(slot: Int) {
        guard let worker = workers[slot], !worker.registered else { return problem("register \(slot): no new worker there") }
        workers[slot]?.registered = true
        step("worker \(slot) registers") { $0.register(slot: slot, generation: worker.generation) }
    }

    /// A worker told to park asks for a job again.
    mutating func park(slot: Int) {
        guard workers[slot]?.state == .parking else { return problem("park \(slot): that worker is not parking") }
        reporter = slot
        step("park worker \(slot)") { $0.park(slot: slot, slot) }
    }

    mutating func cancel(_ name: JobID) {
        guard let job = number(name) else { return }
        let time = tick()
        step("cancel \(name)") { $0.cancel(job, now: time) }
    }

    mutating func cancelAll(_ reason: StopReason) {
        let time = tick()
        step("cancel all (\(reason))") { $0.cancelAll(reason: reason, now: time) }
    }

    mutating func timeOut(_ name: JobID) {
        guard let job = number(name) else { return }
        let time = tick()
        step("time out \(name)") { $0.timeOut(job, now: time) }
    }

    /// The grace period of `name` passed. `began` says whether its worker began its body (the
    /// probe a run reads); a job with no worker has no probe.
    mutating func abandon(_ name: JobID, began: Bool = true) {
        guard let job = number(name) else { return }
        abandon(job: job, began: began)
    }

    /// The grace period of `job` passed (a queue may have given its ID to a newer job since).
    mutating func abandon(job: Int32, began: Bool = true) {
        let name = scheduler.id(of: job)
        graceList.removeAll { $0 == job }
        var progress: (startedAt: Int64, attempt: Int)?
        var earlier: [(job: Int32, completion: Completion)] = []
        if let slot = slot(running: job) {
            if began { progress = (workers[slot]?.began ?? 0, 1) }
            earlier = workers[slot]?.ended ?? []
        }
        let time = tick()
        step("abandon \(name)\(began ? "" : " (its body has not begun)")") {
            $0.abandon(job, progress: progress, earlier: earlier, now: time)
        }
    }

    /// The body of `name`, abandoned, returns at last: the scheduler must ignore it.
    mutating func finishLate(_ name: JobID) {
        guard let job = number(name) else { return problem("finish late \(name): no such job") }
        finishLate(job: job)
    }

    /// The body of `job`, abandoned, returns at last (a queue may have forgotten the job since).
    mutating func finishLate(job: Int32) {
        let name = scheduler.jobs.contains(job) ? scheduler.id(of: job).description : "job \(job) (forgotten)"
        guard let index = detached.firstIndex(where: { $0.job == job && $0.waits.isEmpty }) else {
            return problem("finish late \(name): no abandoned worker runs it")
        }
        let worker = detached.remove(at: index)
        tick()
        let completion = Completion(result: .succeeded(()), attempts: 1, startedAt: worker.began, endedAt: now)
        let actions = scheduler.finish(job, completion, slot: worker.slot, generation: worker.generation)
        log.append("\(name) returns late")
        if !actions.isEmpty || actions.worker != .exit { problem("a late finish of \(name) was not ignored") }
        checkInvariants()
    }

    /// The running job `parent` adds a child named `name`. Returns its ID, or nil when the
    /// scheduler rejects it (the error is kept in ``rejection``).
    @discardableResult
    mutating func addChild(
        _ name: JobID, to parent: JobID, needs: [JobID] = [], lane: String? = nil, priority: Priority = .utility,
        coalesce: String? = nil
    ) -> JobID? {
        guard let job = number(parent) else { return nil }
        let request = Scheduler.ChildRequest(
            name: name, id: JobID("\(parent)/\(name)"), prefix: parent.description,
            job: JobRequest(needs: needs, lane: lane, priority: priority, coalesce: coalesce) { _ in })
        do {
            var child: Int32 = 0
            try step("\(parent) adds \(name)") { scheduler in
                let (number, actions) = try scheduler.addChild(request, to: job)
                child = number
                return actions
            }
            return scheduler.id(of: child)
        } catch {
            log.append("\(parent) adds \(name): rejected (\(error))")
            checkInvariants()
            return nil
        }
    }

    /// The body of `parent` waits for its child `child`, or for all of them. A wait that does not
    /// block goes on in the background, as with `async let`.
    mutating func wait(_ parent: JobID, for child: JobID? = nil, blocking: Bool = true) {
        guard let job = number(parent), let slot = slot(running: job) else {
            return problem("\(parent) waits: no worker runs it")
        }
        let target = child.flatMap { number($0) }
        let waiter = nextWaiter
        nextWaiter += 1
        waitOwners[waiter] = (slot, workers[slot]?.generation ?? 0)
        workers[slot]?.waits.append(waiter)
        if blocking { workers[slot]?.blocked = true }
        let earlier = workers[slot]?.ended ?? []
        workers[slot]?.ended = []
        step("\(parent) waits for \(child.map { "\($0)" } ?? "its children")\(blocking ? "" : " (in the background)")") {
            $0.waitForChildren(of: job, target: target, slot: slot, waiter, earlier: earlier)
        }
    }

    /// A body whose waits went on in the background awaits them now (the scheduler sees nothing).
    mutating func block(slot: Int) {
        workers[slot]?.blocked = true
        log.append("worker \(slot) awaits its waits")
    }

    /// Lets everything end with no new events: workers park, bodies return (those waiting in
    /// the background now await their waits), abandoned bodies return late, grace periods pass.
    mutating func drain() {
        parksAtOnce = true
        registersAtOnce = true
        for _ in 0..<10_000 where problems.isEmpty {
            let current = workers.values.sorted { $0.slot < $1.slot }
            if let worker = current.first(where: { !$0.registered }) {
                register(slot: worker.slot)
            } else if let worker = current.first(where: { $0.state == .parking }) {
                park(slot: worker.slot)
            } else if let worker = current.first(where: { $0.job != nil && $0.waits.isEmpty && $0.settling == nil }),
                let job = worker.job {
                if worker.cancelled || !goOn(scheduler.id(of: job)) {
                    finish(scheduler.id(of: job), worker.cancelled ? .cancelled : .succeeded)
                }
            } else if let worker = current.first(where: { !$0.waits.isEmpty && !$0.blocked }) {
                block(slot: worker.slot)
            } else if let job = graceList.first {
                abandon(job: job)
            } else if let worker = detached.first(where: \.waits.isEmpty), let job = worker.job {
                finishLate(job: job)
            } else if let job = reads.first {
                doneReading(job)
            } else {
                return
            }
        }
    }

    // MARK: - Reading

    /// The jobs whose bodies run in a worker slot now (parents waiting for children gave theirs
    /// up), by ID.
    var running: [JobID] {
        workers.values.filter { $0.job != nil && $0.waits.isEmpty }.compactMap(\.job).map(scheduler.id(of:)).sorted()
    }

    /// The jobs given to workers so far, in order.
    var startOrder: [JobID] { started.map(scheduler.id(of:)) }

    /// The parents whose bodies wait for children now.
    var waiting: [JobID] {
        (workers.values + detached).filter { !$0.waits.isEmpty }.compactMap(\.job).map(scheduler.id(of:)).sorted()
    }

    func phase(_ name: JobID) -> JobPhase? {
        scheduler.job(name).map { scheduler.jobs[$0].phase }
    }

    func failure(_ name: JobID) -> FailureRecord? {
        scheduler.job(name).flatMap { scheduler.failures[$0] }
    }

    var isFinished: Bool { finishedCount == 1 && scheduler.isFinished }

    func number(_ name: JobID) -> Int32? {
        scheduler.job(name)
    }

    /// The slot of the worker running `job` (its body running or waiting for children).
    func slot(running job: Int32) -> Int? {
        workers.values.first { $0.job == job }?.slot
    }

    // MARK: - Carrying out actions

    /// Moves the clock on; returns the new time.
    @discardableResult
    mutating func tick() -> Int64 {
        now += 1
        return now
    }

    /// Runs one event, carries out its actions, and checks the invariants.
    mutating func step(_ name: String, _ event: (inout Scheduler) throws -> Scheduler.Actions) rethrows {
        log.append(name)
        let actions = try event(&scheduler)
        last = actions
        apply(actions)
        // Parents whose children ended report their end, as their workers do.
        while !settled.isEmpty {
            let worker = settled.removeFirst()
            guard let job = worker.job, let completion = worker.settling else { continue }
            // A worker detached while its parent waited reports too, and is ignored: its slot
            // may have a new worker by now, which this must not touch.
            let isCurrent = workers[worker.slot]?.generation == worker.generation
            var earlier: [(job: Int32, completion: Completion)] = []
            if isCurrent {
                workers[worker.slot]?.settling = nil
                earlier = workers[worker.slot]?.ended ?? []
                workers[worker.slot]?.ended = []
                reporter = worker.slot
            } else if let index = detached.firstIndex(where: { $0.slot == worker.slot && $0.generation == worker.generation }) {
                detached[index].settling = nil
            }
            log.append("\(scheduler.id(of: job)) reports its end after its children\(isCurrent ? "" : " (detached)")")
            let more = scheduler.finish(job, completion, earlier: earlier, slot: worker.slot, generation: worker.generation)
            last.append(more)
            apply(more)
        }
        settleHeldEnds()
        checkInvariants()
    }

    /// Settles ends a worker held (see `StepDriver+Batches.swift`) and carries out what follows.
    mutating func settle(ends: [(job: Int32, completion: Completion)]) {
        let actions = scheduler.settle(ends: ends)
        last.append(actions)
        apply(actions)
    }

    private mutating func apply(_ actions: Scheduler.Actions) {
        detachAbandoned()
        if let step = actions.worker { workerDid(step, batch: actions.batch) }
        for (waiter, job) in actions.wake {
            guard workers[waiter]?.state == .parked else {
                problem("woke worker \(waiter), which is not parked")
                continue
            }
            if let job {
                workers[waiter]?.job = job
                workers[waiter]?.state = .running
                workers[waiter]?.began = now
                start(job)
            } else {
                workers[waiter] = nil
            }
        }
        // A task the run does not know yet is not cancelled: registering it cancels it then.
        for (slot, generation) in actions.cancel where workers[slot]?.generation == generation && workers[slot]?.registered == true {
            workers[slot]?.cancelled = true
        }
        for waiter in actions.resume { resume(waiter) }
        for (slot, generation, job, _) in actions.spawn {
            if workers[slot] != nil { problem("a worker was started in slot \(slot), which has one") }
            workers[slot] = Worker(slot: slot, generation: generation, job: job, began: now)
            start(job)
            if registersAtOnce {
                workers[slot]?.registered = true
                apply(scheduler.register(slot: slot, generation: generation))
            }
        }
        graceList += actions.abandonLater.filter { !graceList.contains($0) }
        // The grace period of a job a queue forgot passes without an event: it ended.
        if scheduler.keepFinished != nil { graceList.removeAll { !scheduler.jobs.contains($0) } }
        if actions.finished { finishedCount += 1 }
    }

    /// What the worker that reported the event does next: the one whose slot it names.
    private mutating func workerDid(_ next: WorkerStep, batch: [Int32]) {
        guard let slot = reporter else { return }
        reporter = nil
        switch next {
        case .run(let job):
            workers[slot]?.batch = batch
            workers[slot]?.position = batch.isEmpty ? 0 : 1
            workers[slot]?.ended = []
            workers[slot]?.job = job
            workers[slot]?.state = .running
            workers[slot]?.cancelled = false
            workers[slot]?.began = now
            start(job)
        case .park where workers[slot]?.state == .parking:
            workers[slot]?.state = .parked  // it asked for a job: it waits for one
        case .park:
            workers[slot]?.job = nil
            workers[slot]?.state = .parking
            if parksAtOnce {
                reporter = slot
                let actions = scheduler.park(slot: slot, slot)
                log.append("worker \(slot) parks")
                last.append(actions)
                apply(actions)
            }
        case .exit:
            workers[slot] = nil
        }
    }

    mutating func start(_ job: Int32) {
        if started.contains(job) { problem("\(scheduler.id(of: job)) was given to a worker twice") }
        started.append(job)
    }

    private mutating func resume(_ waiter: Int) {
        if let job = watching.removeValue(forKey: waiter) { return reads.append(job) }
        guard let owner = waitOwners.removeValue(forKey: waiter) else { return problem("resumed wait \(waiter) twice") }
        func resumed(_ worker: inout Worker) -> Bool {
            guard worker.slot == owner.slot, worker.generation == owner.generation else { return false }
            worker.waits.removeAll { $0 == waiter }
            if worker.waits.isEmpty {
                worker.blocked = false
                if worker.settling != nil { settled.append(worker) }
            }
            return true
        }
        if var worker = workers[owner.slot], resumed(&worker) {
            workers[owner.slot] = worker
        } else if let index = detached.firstIndex(where: { $0.slot == owner.slot && $0.generation == owner.generation }) {
            _ = resumed(&detached[index])
        }
    }

    /// Moves the workers whose slots the scheduler gave a new generation (their jobs were
    /// abandoned) to ``detached``.
    private mutating func detachAbandoned() {
        // The worker that reported the event may have left its slot to a new one: its step says.
        for (slot, worker) in workers where worker.generation != scheduler.workers[slot].generation && slot != reporter {
            workers[slot] = nil
            // A queue may have forgotten the job since it ended.
            guard let job = worker.job, !scheduler.jobs.contains(job) || scheduler.jobs[job].phase.isTerminal else {
                problem("slot \(slot) got a new worker while its worker still runs: \(worker); the scheduler's slot: \(scheduler.workers[slot])")
                continue
            }
            detached.append(worker)
        }
    }

    /// Adds a line to the log, for what happened without an event (an event refused, say).
    mutating func note(_ text: String) { log.append(text) }

    mutating func problem(_ text: String) {
        problems.append(text)
        let steps = log.suffix(40).joined(separator: "\n  ")
        Issue.record("\(text)\nsteps (last 40):\n  \(steps)")
    }
}

/// A body's error.
struct StepFailure: Error {}

extension StepDriver: CustomStringConvertible {
    /// Short, for failed expectations: the last steps.
    var description: String { "the run after \(log.suffix(12).joined(separator: "; "))" }
}
