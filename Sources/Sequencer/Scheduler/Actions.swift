/// What the scheduler asks its caller to do after an event: the only way its decisions leave
/// it. The caller (``RunCore``) performs them after releasing the lock, except ``events``,
/// which it sends before releasing it so that they keep the scheduler's order.
///
/// `Waiter` is whatever the caller keeps to resume a parked worker or a parent waiting for its
/// children: a continuation in a run, a plain number in the step tests.
struct SchedulerActions<Waiter> {
    /// What the worker that reported the event does next (for ``SchedulerState/finish`` and
    /// ``SchedulerState/park``); nil for other events.
    var worker: WorkerStep?
    /// The batch the worker that reported the event took, first job included (see
    /// `SchedulerState+Batches.swift`); empty when it took one job or none.
    var batch: [Int32] = []
    /// Parked workers to wake: each with the job it runs, or nil to exit.
    var wake: [(waiter: Waiter, job: Int32?)] = []
    /// New workers to start: a slot, its generation, the first job and the priority its task
    /// starts at (the job's own, as declared or added).
    var spawn: [(slot: Int, generation: UInt32, job: Int32, priority: Priority)] = []
    /// Workers whose tasks must be cancelled (their running job was cancelled), by slot and
    /// generation: a slot whose worker changed since is left alone.
    var cancel: [(slot: Int, generation: UInt32)] = []
    /// Parents' waits for their children to resume.
    var resume: [Waiter] = []
    /// Running jobs that were cancelled: abandon those still running after the grace period.
    var abandonLater: [Int32] = []
    /// Events for the run's event stream, in order.
    var events: [RunEvent] = []
    /// Set when this step ended the run.
    var finished = false
    /// The bodies of added jobs that ended, which the scheduler let go of: the caller drops
    /// them after releasing the lock, since what they captured may call back into the queue
    /// as it goes (an object that owns the queue, say, whose last reference was in a body).
    var released: [any JobBody] = []

    var isEmpty: Bool {
        wake.isEmpty && spawn.isEmpty && cancel.isEmpty && resume.isEmpty && abandonLater.isEmpty && events.isEmpty && !finished
    }
}

/// What a worker does after finishing a job or asking for one.
enum WorkerStep: Equatable {
    case run(Int32)
    /// Wait to be woken (the scheduler kept the worker's waiter).
    case park
    case exit
}

extension SchedulerActions {
    /// Adds another step's actions after these.
    mutating func append(_ other: SchedulerActions) {
        wake += other.wake
        spawn += other.spawn
        cancel += other.cancel
        resume += other.resume
        abandonLater += other.abandonLater
        events += other.events
        finished = finished || other.finished
        released += other.released
    }
}


extension SchedulerActions: Sendable where Waiter: Sendable {}
