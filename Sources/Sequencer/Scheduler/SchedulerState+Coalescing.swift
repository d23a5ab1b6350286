/// Coalescing: jobs with the same key run one body between them.
///
/// The first job with a key that a worker takes leads: its body runs. A job with the key taken
/// while the leader runs joins it: it holds its lane slot but no worker, and ends with the
/// leader's result. A job with the key taken after the leader ended gets that result at once.
/// Either way it keeps its own needs, lane and place in the report (with 0 attempts).
struct CoalescedRun {
    var leader: Int32
    var joiners: [Int32] = []
}

extension SchedulerState {
    /// The worker in `slot` took `job`, which has coalescing key `key`. Returns nil when the job
    /// leads (its body runs); otherwise the job joined or took the key's result, and the worker
    /// gets its next step.
    mutating func coalesce(_ job: Int32, key: String, slot: Int, now: Int64, into actions: inout Actions) -> Next? {
        guard let run = coalesced[key] else {
            coalesced[key] = CoalescedRun(leader: job)
            return nil
        }
        workerJob[slot] = -1
        setStart(job, at: now)
        if jobs[Int(run.leader)].phase.isTerminal {
            share(run.leader, with: job, endedAt: now)
        } else {
            coalesced[key]?.joiners.append(job)
        }
        return next(forSlot: slot, into: &actions)
    }

    /// A job ended: if it led a coalesced run, the jobs that joined it end the same way.
    mutating func shareResult(of job: Int32, _ result: Completion.Result) {
        guard let key = options(of: job)?.coalesce, let run = coalesced[key], run.leader == job else { return }
        coalesced[key]?.joiners = []
        for joiner in run.joiners where jobs[Int(joiner)].phase == .running {
            share(job, with: joiner, endedAt: jobs[Int(job)].endedAt)
        }
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
}
