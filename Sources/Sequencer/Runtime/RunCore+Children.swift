import Synchronization

/// Reading values of needs and children, adding children, and waiting for them.
extension RunCore {
    /// The value of `handle`'s job for `job`: a need's (which has ended), or a child's (waited for).
    func value<T>(of handle: JobHandle<T>, for job: Int32, slot: Int) async throws -> (any Sendable)? {
        let (target, isNeed, isChild, me) = state.withLock { state -> (Int32?, Bool, Bool, JobID) in
            let scheduler = state.scheduler
            let me = scheduler.id(of: job)
            var target = scheduler.job(handle.id)
            if scheduler.jobs.contains(handle.index), scheduler.id(of: handle.index) == handle.id {
                target = handle.index
            }
            guard let target else { return (nil, false, false, me) }
            let isNeed = scheduler.isPlanned(job)
                ? plan.needRange(of: Int(job)).contains { plan.needs[$0] == target }
                : scheduler.added[job].needs.contains(target)
            return (target, isNeed, scheduler.isChild(target, of: job), me)
        }
        guard let target, isNeed || isChild else {
            throw WorkflowError(
                code: target == nil ? .unknownNeed : .notANeed,
                message: target == nil
                    ? "job '\(me)' reads the value of '\(handle.id)', which is not a job in this run"
                    : "job '\(me)' reads the value of '\(handle.id)', which is neither one of its needs nor one of its children",
                jobs: [me, handle.id])
        }
        if isChild { await waitForChildren(of: job, target: target, slot: slot) }
        return try state.withLock { state in
            if isChild, state.scheduler.jobs[target].phase != .succeeded {
                throw state.scheduler.error(of: target) ?? JobError(code: .cancelled, underlying: nil, path: [handle.id])
            }
            return state.scheduler.value(of: target)
        }
    }

    /// Adds a child job to the running job `parent`.
    func addChild(_ request: Scheduler.ChildRequest, to parent: Int32) throws -> (Int32, JobID) {
        var child: (Int32, JobID)?
        try step { state in
            let (number, actions) = try state.scheduler.addChild(request, to: parent)
            child = (number, state.scheduler.id(of: number))
            return actions
        }
        guard let child else { throw CancellationError() }  // `step` ran the event: never taken
        return child
    }

    /// Waits, without holding a worker slot, until `target` (a child of `parent`, or nil for all
    /// of them) has ended. `slot` is the slot of the worker running `parent`.
    func waitForChildren(of parent: Int32, target: Int32?, slot: Int) async {
        _ = await withCheckedContinuation { continuation in
            step { state in
                // The ends its worker holds of the jobs of its batch before `parent` are settled
                // now: its children may need them.
                let worker = slot < state.workers.count ? state.workers[slot] : nil
                let earlier = worker?.generation == state.scheduler.workers[slot].generation ? worker?.probe.takeEnded() ?? [] : []
                return state.scheduler.waitForChildren(of: parent, target: target, slot: slot, continuation, earlier: earlier)
            }
        }
    }

    /// After an attempt: a failed attempt's children are cancelled; then the job waits for them
    /// all, so a job ends only after its children.
    func settleChildren(of job: Int32, slot: Int, attemptFailed: Bool) async {
        guard state.withLock({ $0.scheduler.hasUnfinishedChildren(job) }) else { return }
        if attemptFailed {
            let now = time.now()
            step { $0.scheduler.cancelChildren(of: job, now: now) }
        }
        await waitForChildren(of: job, target: nil, slot: slot)
    }
}
