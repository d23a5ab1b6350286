/// Spare workers: a worker told to exit keeps its task, parked, to be the next new worker.
///
/// A parent that waits for its children gives up its worker slot, and a new worker runs its
/// child; when the child ends, the parent takes a slot back, and a worker exits to make room.
/// Without spares, a run of parents that each add a child started and ended a task (and its
/// probe) for every parent. A spare is reused only by a new worker of its own priority, and
/// never after its job was cancelled: its task may be cancelled (see ``mayBeSpare(slot:generation:_:)``).
extension RunCore {
    /// A parked spare and what wakes it: with the slot it takes and its first job, or nil to exit.
    struct Spare {
        let task: Task<Void, Never>
        let probe: WorkerProbe
        let priority: Priority
        let waiter: CheckedContinuation<Assignment?, Never>
    }

    /// What a spare worker is reused for: a new worker's slot, generation and first job.
    struct Assignment: Sendable {
        let slot: Int
        let generation: UInt32
        let job: Int32
    }

    /// Whether the worker in `slot` may become a spare if the report it is about to make tells
    /// it to exit, read before that report. Not when its job was cancelled: its task is, or is
    /// about to be, cancelled (the scheduler marks such a slot retiring in the step that decides
    /// the cancel, and a slot with no job running is never cancelled), nor when it was detached.
    static func mayBeSpare(slot: Int, generation: UInt32, _ state: State) -> Bool {
        let worker = state.scheduler.workers[slot]
        return worker.generation == generation && !worker.retiring
    }

    /// Parks the worker that left `slot` as a spare, until a new worker is wanted (the
    /// assignment) or the run ends (nil). Nil at once when the run has ended, its slot went to a
    /// newer worker already, or enough workers are spare.
    func waitAsSpare(slot: Int, generation: UInt32) async -> Assignment? {
        await withCheckedContinuation { continuation in
            let parked = state.withLock { state in
                guard !state.scheduler.hasFinished, state.spares.count < state.scheduler.workers.limit,
                    state.scheduler.workers[slot].generation == generation,
                    slot < state.workers.count, let worker = state.workers[slot], worker.generation == generation
                else { return false }
                // Its old slot forgets it: a late look-up of that slot finds no worker.
                state.workers[slot] = nil
                state.spares.append(Spare(task: worker.task, probe: worker.probe, priority: worker.priority, waiter: continuation))
                return true
            }
            if !parked { continuation.resume(returning: nil) }
        }
    }

    /// Under the lock of the step that decided `actions`: each new worker of the priority of a
    /// spare reuses it, registered in its slot now (a cancel decided from here on finds it), in
    /// place of a new task; when the step ended the run, every spare exits. Returns the spares
    /// to wake, and with what, once the lock is released.
    static func reuseSpares(_ state: inout State, _ actions: inout Scheduler.Actions) -> [(Spare, Assignment?)] {
        var woken: [(Spare, Assignment?)] = []
        if actions.finished {
            woken = state.spares.map { ($0, nil) }
            state.spares = []
            return woken
        }
        var kept: [(slot: Int, generation: UInt32, job: Int32, priority: Priority)] = []
        for spawn in actions.spawn {
            guard let index = state.spares.lastIndex(where: { $0.priority == spawn.priority }) else {
                kept.append(spawn)
                continue
            }
            let spare = state.spares.remove(at: index)
            while state.workers.count <= spawn.slot { state.workers.append(nil) }
            state.workers[spawn.slot] = Worker(generation: spawn.generation, task: spare.task, probe: spare.probe, priority: spare.priority)
            woken.append((spare, Assignment(slot: spawn.slot, generation: spawn.generation, job: spawn.job)))
        }
        actions.spawn = kept
        return woken
    }
}
