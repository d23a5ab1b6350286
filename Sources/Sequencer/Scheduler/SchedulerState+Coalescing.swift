/// Coalescing: jobs with the same key run one body between them.
///
/// Decided when a worker takes a job with a key, in take order. The first such job leads: its
/// body runs. A job with the key taken while the leader runs joins it: it holds its lane slot but
/// no worker, and ends with the leader's result. A job with the key taken after the leader ended
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
        // Joining a leader that waits, through its children and their joins, for this job
        // would never end: this job runs its own body instead.
        if !groups.isEmpty, waits(run.leader, for: job) { return true }
        setStart(job, at: clock)
        coalesced[Int(key)]?.joiners.append(job)
        // It does no work of its own while it waits: its lane slot goes to others (its leader
        // may need it to resume).
        releaseLane(of: job)
        jobs[Int(job)].lane = -1
        return false
    }

    /// Whether `job` waits, directly or not, for `other` to end: `other` is one of its
    /// unfinished descendants, or a job one of them joined, or one of that job's, and so on. A
    /// child with a key that has not been taken yet, or that runs its own body, has joined no
    /// one: it does not make its ancestors wait for its key's leader. (Should it join later, that
    /// join is checked then: no job ever waits for itself.)
    func waits(_ job: Int32, for other: Int32) -> Bool {
        var stack = [job]
        var seen: Set<Int32> = [job]
        while let current = stack.popLast() {
            for child in groups[current]?.children ?? [] where !jobs[Int(child)].phase.isTerminal {
                if child == other { return true }
                if seen.insert(child).inserted { stack.append(child) }
                let key = key(of: child)
                if key >= 0, let run = coalesced[Int(key)], run.joiners.contains(child), seen.insert(run.leader).inserted {
                    if run.leader == other { return true }
                    stack.append(run.leader)
                }
            }
        }
        return false
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
