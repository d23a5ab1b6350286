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
        if jobs[run.leader].phase.isTerminal {
            jobs[job].startedAt = clock
            share(run.leader, with: job, endedAt: clock)
            releaseBody(of: job)
            return false
        }
        // Joining a leader that waits for this job (through its unfinished children, the jobs
        // they need and the leaders they joined) would never end: this job runs its own body
        // instead. A leader without unfinished children waits for no one.
        if !groups.isEmpty, hasUnfinishedChildren(run.leader), waits(run.leader, for: job) { return true }
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

    /// Whether `job` waits, directly or not, for `other` to end (see ``waitPath(from:to:seen:)``).
    mutating func waits(_ job: Int32, for other: Int32) -> Bool {
        var seen: [Int32: WaitStep] = [job: WaitStep(from: nil, reason: .child)]
        return waitPath(from: job, to: { $0 == other }, seen: &seen) != nil
    }

    /// Why a job waits for the next one on a path.
    enum WaitReason {
        /// It is a parent and the next is one of its unfinished children.
        case child
        /// It joined the next, a coalesced leader.
        case joined
        /// It is waiting for its needs, and the next is one of them that has not ended.
        case needs
        /// It waits for its turn in an ordered lane, and the next is the job ahead of it there,
        /// which has not started.
        case turn
    }

    /// How a search reached a job: from which, and why that one waits for it.
    struct WaitStep {
        /// Nil for where a search started.
        var from: Int32?
        var reason: WaitReason
    }

    /// A path of waits from `start` to a job `isTarget` accepts, as (job, why it waits for the
    /// next) pairs ending with the target (whose reason is meaningless), or nil. A job waits for
    /// its unfinished children, for the leader it joined, and, while it waits to start, for its
    /// needs that have not ended. A child with a key that has not been taken yet, or that runs
    /// its own body, has joined no one: it does not make its ancestors wait for its key's
    /// leader. (Should it join later, that join is checked then: no job ever waits for itself.)
    ///
    /// `seen` holds the jobs already searched (with `start`): a search that found nothing can
    /// share it with the next. Visits only what `start` waits for, each job once.
    mutating func waitPath(from start: Int32, to isTarget: (Int32) -> Bool, seen: inout [Int32: WaitStep]) -> [(Int32, WaitReason)]? {
        var stack = [start]
        func visit(_ next: Int32, from current: Int32, _ reason: WaitReason) -> Bool {
            guard seen[next] == nil else { return false }
            seen[next] = WaitStep(from: current, reason: reason)
            stack.append(next)
            return isTarget(next)
        }
        func path(to target: Int32) -> [(Int32, WaitReason)] {
            var path: [(Int32, WaitReason)] = [(target, .child)]
            var current = target
            while current != start, let step = seen[current], let from = step.from {
                path.append((from, step.reason))
                current = from
            }
            return path.reversed()
        }
        while let current = stack.popLast() {
            let state = jobs[current]
            if state.phase == .waiting || state.phase == .laneWaiting, let ahead = jobAhead(of: current) {
                // Its turn in an ordered lane comes after the job ahead of it has started.
                if visit(ahead, from: current, .turn) { return path(to: ahead) }
            }
            if state.phase == .waiting {
                if isPlanned(current) {
                    for edge in plan.needRange(of: Int(current)) {
                        let need = plan.needs[edge]
                        if !jobs[need].phase.isTerminal, visit(need, from: current, .needs) { return path(to: need) }
                    }
                } else {
                    for need in added[current].needs where !jobs[need].phase.isTerminal {
                        if visit(need, from: current, .needs) { return path(to: need) }
                    }
                }
                continue  // it has not started: no children, no join
            }
            guard state.phase == .running else { continue }
            if !groups.isEmpty, let group = groups[current], group.unfinished > 0 {
                for child in group.children where !jobs[child].phase.isTerminal {
                    if visit(child, from: current, .child) { return path(to: child) }
                }
            }
            if let key = key(of: current), let run = coalescing[key], run.leader != current, run.joiners.contains(current) {
                if visit(run.leader, from: current, .joined) { return path(to: run.leader) }
            }
        }
        return nil
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

    /// The jobs waiting for a coalesced leader.
    var joiners: [Int32] {
        coalescing.joiners.filter { jobs[$0].phase == .running }
    }

    /// Checks a child's coalescing key: an earlier job with the key returns the same type, and
    /// no ancestor of the child leads the key (the child would wait for its own result).
    func checkChildKey(_ key: String, for id: JobID, type: ObjectIdentifier?, parent: Int32) throws {
        guard let known = coalescing.keys[key] else { return }
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
        let number = try coalescing.use(key, job: id, type: type)
        if keepFinished != nil { coalescing.retain(number, name: key) }
        return number
    }
}
