/// Coalescing: jobs with the same key run one body between them.
///
/// Decided when a worker takes a job with a key, in take order. The first such job leads: its
/// body runs. A job with the key taken while the leader runs joins it: it holds neither a worker
/// nor its lane slot, and ends with the leader's result. A job with the key taken after the leader ended
/// gets that result at once, unless the leader was cancelled: then the key is free again and the
/// job leads a new run of the work. Either way a job keeps its own needs, lane and place in the
/// report (with 0 attempts). Times of jobs that do not run a body are the scheduler's latest
/// reading of the clock (``clock``), which is never earlier than the end of any job recorded.
struct CoalescedRun {
    var leader: Int32
    var joiners: [Int32] = []
}

extension SchedulerState {
    /// The job's coalescing key number, or -1.
    func key(of job: Int32) -> Int32 {
        Int(job) < plan.count ? plan.key(of: Int(job)) : dynamic.keys[Int(job) - plan.count]
    }

    /// A worker took `job`: returns true when it runs its body (it has no key, or leads its
    /// key); false when it joined the key's leader or took its result, needing no worker.
    mutating func lead(_ job: Int32) -> Bool {
        let key = key(of: job)
        guard key >= 0 else { return true }
        guard let run = coalesced[Int(key)] else {
            coalesced[Int(key)] = CoalescedRun(leader: job)
            return true
        }
        if jobs[Int(run.leader)].phase.isTerminal {
            setStart(job, at: clock)
            share(run.leader, with: job, endedAt: clock)
            return false
        }
        // Joining a leader that waits for this job (through its unfinished children, the jobs
        // they need and the leaders they joined) would never end: this job runs its own body
        // instead. A leader without unfinished children waits for no one.
        if !groups.isEmpty, hasUnfinishedChildren(run.leader), waits(run.leader, for: job) { return true }
        setStart(job, at: clock)
        coalesced[Int(key)]?.joiners.append(job)
        // It does no work of its own while it waits: its lane slot goes to others (its leader
        // may need it to resume).
        releaseLane(of: job)
        jobs[Int(job)].lane = -1
        return false
    }

    /// Whether `job` waits, directly or not, for `other` to end (see ``waitPath(from:to:seen:)``).
    func waits(_ job: Int32, for other: Int32) -> Bool {
        var seen: [Int32: WaitStep] = [job: WaitStep(from: -1, reason: .child)]
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
    }

    /// How a search reached a job: from which, and why that one waits for it.
    struct WaitStep {
        var from: Int32
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
    func waitPath(from start: Int32, to isTarget: (Int32) -> Bool, seen: inout [Int32: WaitStep]) -> [(Int32, WaitReason)]? {
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
            while current != start, let step = seen[current] {
                path.append((step.from, step.reason))
                current = step.from
            }
            return path.reversed()
        }
        while let current = stack.popLast() {
            let state = jobs[Int(current)]
            if state.phase == .waiting {
                if Int(current) < plan.count {
                    for edge in plan.needRange(of: Int(current)) {
                        let need = plan.needs[edge]
                        if !jobs[Int(need)].phase.isTerminal, visit(need, from: current, .needs) { return path(to: need) }
                    }
                } else {
                    for need in dynamic.needs[Int(current) - plan.count] where !jobs[Int(need)].phase.isTerminal {
                        if visit(need, from: current, .needs) { return path(to: need) }
                    }
                }
                continue  // it has not started: no children, no join
            }
            guard state.phase == .running else { continue }
            if !groups.isEmpty, let group = groups[current], group.unfinished > 0 {
                for child in group.children where !jobs[Int(child)].phase.isTerminal {
                    if visit(child, from: current, .child) { return path(to: child) }
                }
            }
            let key = key(of: current)
            if key >= 0, let run = coalesced[Int(key)], run.leader != current, run.joiners.contains(current) {
                if visit(run.leader, from: current, .joined) { return path(to: run.leader) }
            }
        }
        return nil
    }

    /// A job ended: if it led a coalesced run, the jobs that joined it end the same way. A
    /// cancelled leader frees its key, so that a later job with the key runs the work again.
    mutating func shareResult(of job: Int32) {
        let key = key(of: job)
        guard key >= 0, let run = coalesced[Int(key)], run.leader == job else { return }
        coalesced[Int(key)]?.joiners = []
        for joiner in run.joiners where jobs[Int(joiner)].phase == .running {
            share(job, with: joiner, endedAt: jobs[Int(job)].endedAt)
        }
        if jobs[Int(job)].phase == .cancelled { coalesced[Int(key)] = nil }
    }

    /// Ends `joiner` as its leader ended: with its value, or with its failure (traced to it).
    private mutating func share(_ leader: Int32, with joiner: Int32, endedAt: Int64) {
        jobs[Int(joiner)].endedAt = max(endedAt, jobs[Int(joiner)].startedAt)
        let phase = jobs[Int(leader)].phase
        if phase == .succeeded {
            succeed(joiner, value(of: leader) ?? ())
        } else {
            let record = failures[leader]
            end(joiner, phase, FailureRecord(code: record?.code ?? .failed, underlying: record?.underlying, cause: leader))
        }
    }

    /// The jobs waiting for a coalesced leader.
    var joiners: [Int32] {
        coalesced.lazy.compactMap { $0 }.flatMap(\.joiners).filter { jobs[Int($0)].phase == .running }
    }

    /// Checks a child's coalescing key and returns its number: the key must not be led by one of
    /// the child's ancestors (the child would wait for a job that waits for it).
    mutating func childKey(_ key: String, for id: JobID, type: ObjectIdentifier?, parent: Int32) throws -> Int32 {
        let number = try CoalescingKey.check(key, job: id, type: type, in: &keyIDs)
        if Int(number) >= coalesced.count { coalesced.append(nil) }
        var ancestor = parent
        while ancestor >= 0 {
            if coalesced[Int(number)]?.leader == ancestor {
                throw WorkflowError(
                    code: .invalidOption,
                    message: "child '\(id)' has coalescing key '\(key)', which '\(self.id(of: ancestor))' leads; it would wait for its own result",
                    jobs: [self.id(of: ancestor), id])
            }
            ancestor = self.parent(of: ancestor)
        }
        return number
    }
}
