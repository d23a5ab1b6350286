/// Coalescing: jobs with the same key run one body between them.
///
/// Decided when a worker takes a job with a key, in take order. The first such job leads: its
/// body runs. A job with the key taken while the leader runs joins it: it holds neither a worker
/// nor its lane slot, and ends with the leader's result. A job with the key taken after the leader ended
/// gets that result at once, unless the leader was cancelled: then the key is free again and the
/// job leads a new run of the work. Either way a job keeps its own needs, lane and place in the
/// report (with 0 attempts). Times of jobs that do not run a body are the scheduler's latest
/// reading of the clock (``SchedulerState/clock``), which is never earlier than the end of any job recorded.
struct CoalescedRun {
    var leader: Int32
    var joiners: [Int32] = []
}

extension SchedulerState {
    /// The job's coalescing key number, if it has a key.
    func key(of job: Int32) -> Int32? {
        isPlanned(job) ? plan.key(of: Int(job)) : added[job].key
    }

    /// The coalescing keys in use, by name: the workflow's, and those of jobs added since that a
    /// queue has not forgotten.
    var keysInUse: [String: CoalescingKey] { coalescing.keys(ids: plan.ids) }

    /// A worker took `job`: returns true when it runs its body (it has no key, or leads its
    /// key); false when it joined the key's leader or took its result, needing no worker.
    mutating func lead(_ job: Int32) -> Bool {
        guard let key = key(of: job) else { return true }
        guard let run = coalescing[key] else {
            coalescing[key] = CoalescedRun(leader: job)
            // A queue keeps the leader while its run lasts, for the jobs that share its result.
            if keepFinished != nil, !isPlanned(job) { added[job].readers += 1 }
            return true
        }
        // A leader a closed batch gave back, taken again (see `SchedulerState+Batches.swift`).
        if run.leader == job { return true }
        if jobs[run.leader].phase.isTerminal {
            jobs[job].startedAt = clock
            share(run.leader, with: job, endedAt: clock)
            releaseBody(of: job)
            return false
        }
        // Joining a leader that waits for this job (through its unfinished children, the jobs
        // they need and the leaders they joined) would never end: this job runs its own body
        // instead. A leader without unfinished children waits for no one.
        if !groups.isEmpty, groups.hasUnfinished(run.leader), waits(run.leader, for: job) { return true }
        jobs[job].startedAt = clock
        coalescing[key]?.joiners.append(job)
        // It does no work of its own while it waits: its lane slot goes to others (its leader
        // may need it to resume).
        releaseLane(of: job)
        jobs[job].lane = nil
        releaseBody(of: job)
        return false
    }

    /// The job just ahead of `job` in its ordered lane that has not started, if any: `job`
    /// cannot start before it has. Children take no place in a lane's order. Mutating only to
    /// remember the way (see ``Lane/jobAhead(of:_:)``): O(log n) amortized.
    mutating func jobAhead(of job: Int32) -> Int32? {
        guard let lane = jobs[job].lane, lanes[lane].ordered, !isChild(job) else { return nil }
        return lanes[lane].jobAhead(of: job, jobs)
    }

    /// A job ended: if it led a coalesced run, the jobs that joined it end the same way. A
    /// cancelled leader frees its key, so that a later job with the key runs the work again.
    mutating func shareResult(of job: Int32) {
        guard let key = key(of: job), let run = coalescing[key], run.leader == job else { return }
        coalescing[key]?.joiners = []
        for joiner in run.joiners where jobs[joiner].phase == .running {
            share(job, with: joiner, endedAt: jobs[job].endedAt)
        }
        if jobs[job].phase == .cancelled { dropRun(key) }
    }

    /// Ends `joiner` as its leader ended: with its value, or with its failure (traced to it).
    private mutating func share(_ leader: Int32, with joiner: Int32, endedAt: Int64) {
        jobs[joiner].endedAt = max(endedAt, jobs[joiner].startedAt ?? endedAt)
        let phase = jobs[leader].phase
        if phase == .succeeded {
            succeed(joiner, value(of: leader) ?? ())
        } else {
            let record = failures[leader]
            end(joiner, phase, FailureRecord(code: record?.code ?? .failed, underlying: record?.underlying, cause: leader))
        }
    }

    /// The jobs waiting for a coalesced leader that has not begun: a closed batch gave it back,
    /// and it is queued again. They end with it if it ends before it begins.
    var joinersOfPending: [Int32] {
        coalescing.runs { jobs[$0.leader].phase.isPending }.flatMap(\.joiners).filter { jobs[$0].phase == .running }
    }

    /// The jobs waiting for a coalesced leader.
    var joiners: [Int32] {
        coalescing.joiners.filter { jobs[$0].phase == .running }
    }

    /// Checks a child's coalescing key: an earlier job with the key returns the same type, and
    /// no ancestor of the child leads the key (the child would wait for its own result).
    mutating func checkChildKey(_ key: String, for id: JobID, type: ObjectIdentifier?, parent: Int32) throws {
        guard let known = coalescing.known(key, ids: plan.ids) else { return }
        try known.check(key, job: id, type: type)
        for ancestor in lineage(from: parent) where coalescing[known.id]?.leader == ancestor {
            throw WorkflowError(
                code: .invalidOption,
                message: "child '\(id)' has coalescing key '\(key)', which '\(self.id(of: ancestor))' leads; it would wait for its own result",
                jobs: [self.id(of: ancestor), id])
        }
    }

    /// Records the use of a key by a child that ``checkChildKey(_:for:type:parent:)`` checked;
    /// returns the key's number.
    mutating func useChildKey(_ key: String, for id: JobID, type: ObjectIdentifier?) throws -> Int32 {
        let number = try coalescing.use(key, job: id, type: type, ids: plan.ids)
        if keepFinished != nil { coalescing.retain(number, name: key) }
        return number
    }
}
