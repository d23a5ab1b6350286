/// Batches: several jobs per trip to the run's lock.
///
/// A worker that finds the ready queue deep takes several of its jobs in one step
/// (``takeBatch(slot:)``), runs them one after another, and reports their ends in one step
/// (``finish(_:_:earlier:slot:generation:)``). Every job of the batch is `running` from the step
/// that took it, but its body begins only when its worker claims it (``BatchClaim``). Until then
/// the scheduler may close the batch (``closeBatch(of:)``): the jobs its worker has not begun go
/// back to the front of the ready queue, `queued` again, and the slot's job becomes the one its
/// worker runs, as if it had been taken alone. A batch is closed:
/// - by the worker's report (it gives back what it chose not to begin);
/// - by a worker with nothing to do, when the ready queue is empty: the longest batch's jobs not
///   begun go to it, so that no job waits behind a slow one while a worker is idle;
/// - before one of its jobs is cancelled: a job not begun ends as a queued job does, its body
///   never called; a job whose body returned ends with its worker's report;
/// - before the run stops starting jobs (a failure, a cancel, the deadline): jobs not begun end
///   as pending jobs do;
/// - before its running job adds a child or waits for one. A run whose jobs add children takes
///   no batch after the first such close (``takesBatches``): its jobs are parents, and each
///   would give back the rest of its batch, a cost that grows with the batch, for every parent.
///
/// Only the plan's jobs with no place in an ordered lane are batched, in a run that sends no
/// events, is not recorded and has no priorities (the caller sets
/// ``batchLimit`` to 1 otherwise): so a batched job's `.started` is never observed, and an
/// ordered lane's order and a higher priority's precedence hold as before. A batched job's
/// timeout starts as its body begins (its worker starts the timer: a job not begun has none), and
/// a job that fails and will be tried again gives back the rest of its batch first
/// (``retry(_:slot:generation:)``), so that they do not wait out its delays. A job in a lane
/// keeps its lane slot while taken, as a queued job does.
///
/// A batch's jobs with a coalescing key lead or join as they are taken, in take order, as jobs
/// taken one at a time do; a job that joins is not part of the batch. A leader given back stays
/// its key's leader, its joiners waiting while it is queued again: taken again, it runs its body
/// (``lead(_:)``); ended before it began, its joiners end with it (``end(_:_:_:)`` and
/// ``endPending(code:phase:cause:)``).
extension SchedulerState {
    /// Takes the next job for the worker in `slot` and, when the ready queue is deep, more after
    /// it. With nothing ready, it first takes back the jobs not begun of the longest batch.
    mutating func takeBatch(slot: Int) -> Int32? {
        if batchLimit > 1, ready.isEmpty { reclaimLongestBatch() }
        guard let first = takeReady(slot: slot) else { return nil }
        if batchLimit > 1 { takeMore(after: first, slot: slot) }
        return first
    }

    /// Takes up to `batchLimit - 1` jobs after `first`, leaving the rest of the ready queue for
    /// the other workers (a share each, counting the workers the run may still start).
    private mutating func takeMore(after first: Int32, slot: Int) {
        let more = min(batchLimit - 1, ready.count / (workers.limit + 1))
        guard more > 0, takesBatches, canBatch(first) else { return }
        var batch = [first]
        batch.reserveCapacity(more + 1)
        while batch.count <= more, let job = ready.popLive(jobs) {
            guard canBatch(job) else {
                ready.putBack(job, priority: jobs[job].priority)
                break
            }
            setPhase(job, from: .queued, to: .running)
            // A job that joins its key's leader needs no worker: it stays out of the batch.
            if !coalescing.isEmpty, !lead(job) { continue }
            batch.append(job)
        }
        guard batch.count > 1 else { return }
        workers.openBatch(slot, batch)
        outbox.batch = batch
    }

    /// Whether `job` may be taken in a batch: one of the plan's jobs (a job added at run time
    /// brings its own options and body), not in an ordered lane (a job given back would lose
    /// its place in the lane's order).
    private func canBatch(_ job: Int32) -> Bool {
        guard isPlanned(job) else { return false }
        if !lanes.isEmpty, let lane = jobs[job].lane, lanes[lane].ordered { return false }
        return true
    }

    /// Closes the open batch of `slot`, if it has one: its worker begins no more of its jobs.
    /// Those it did not begin go back to the front of the ready queue, in order; the one it runs
    /// becomes the slot's job; those whose bodies returned end with its next report.
    mutating func closeBatch(of slot: Int) {
        let batch = workers[slot].batch
        guard !batch.isEmpty else { return }
        let begun = min(batch.count, max(1, workers[slot].claim.close()))
        workers[slot].job = batch[begun - 1]
        workers.closeBatch(slot, awaiting: Array(batch[..<(begun - 1)]))
        for job in batch[begun...].reversed() {
            setPhase(job, from: .running, to: .queued)
            ready.putBack(job, priority: jobs[job].priority)
        }
    }

    /// `job`, run by the worker in `slot`, failed an attempt that its policy would try again:
    /// whether it may be (see ``mayRetry(_:slot:generation:)``). Its batch is closed first, so its
    /// running job is its slot's job again, and the jobs it has not begun go back to the ready
    /// queue rather than wait out the delay. A worker detached since (its job abandoned) gives
    /// back nothing: its slot is another's.
    mutating func retry(_ job: Int32, slot: Int, generation: UInt32) -> (Bool, Actions) {
        guard workers[slot].generation == generation else { return (false, flush()) }
        closeBatch(of: slot)
        return (mayRetry(job, slot: slot, generation: generation), flush())
    }

    /// Closes every open batch (the run stops starting jobs).
    mutating func closeBatches() {
        guard batchLimit > 1 else { return }
        for slot in workers.batching { closeBatch(of: slot) }
    }

    /// Closes the batch that holds `job`, begun or not, if one does. Returns whether one did.
    @discardableResult
    mutating func closeBatch(holding job: Int32) -> Bool {
        guard batchLimit > 1, let slot = workers.slot(batching: job) else { return false }
        closeBatch(of: slot)
        return true
    }

    /// Closes the batch with the most jobs not begun, for a worker with nothing to do.
    private mutating func reclaimLongestBatch() {
        var longest: (slot: Int, unbegun: Int)?
        for slot in workers.batching where !workers[slot].batch.isEmpty {
            let unbegun = workers[slot].claim.unbegun
            if unbegun > (longest?.unbegun ?? 0) { longest = (slot, unbegun) }
        }
        if let longest { closeBatch(of: longest.slot) }
    }

    /// How many jobs open batches hold that their workers have not begun: `running` in
    /// ``counts``, but pending to anyone reading the run.
    var unbegunInBatches: Int {
        guard batchLimit > 1 else { return 0 }
        return workers.batching.reduce(0) { count, slot in
            let batch = workers[slot].batch
            return count + (batch.isEmpty ? 0 : min(workers[slot].claim.unbegun, batch.count - 1))
        }
    }

    /// Whether a worker could start a job now: one is parked, or the run may start another.
    var couldStartJob: Bool { !workers.idle.isEmpty || workers.hasRoom }

    /// Whether the worker in `slot` may hold ends of batched jobs it has not reported.
    func mayHoldEnds(slot: Int) -> Bool {
        !workers[slot].batch.isEmpty || !workers[slot].awaiting.isEmpty
    }

    /// Ends of batched jobs read from a worker that has not reported them (see
    /// ``WorkerProbe/takeEnded()``): those still running end now, and the worker's report skips them.
    mutating func settle(ends: [(job: Int32, completion: Completion)]) -> Actions {
        settleHeld(ends)
        return flush()
    }

    /// Settles the ends a worker held, skipping those the run settled already (from the same
    /// worker's held ends, read by another step) and those a queue forgot.
    mutating func settleHeld(_ ends: [(job: Int32, completion: Completion)]) {
        for (job, end) in ends where jobs.contains(job) && jobs[job].phase == .running { settle(job, end) }
    }
}
