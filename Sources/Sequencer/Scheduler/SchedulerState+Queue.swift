/// A queue: a run that stays open, taking jobs from outside while it runs (``JobQueue``).
///
/// A queue's jobs are added jobs with no parent. It keeps going after a failure (a failed job
/// skips only the jobs that need it), and it forgets what no one can ask for any more: a
/// finished job is kept while a job that needs it has not ended or a caller waits for its
/// result, and beyond that only the newest `keepFinished` finished jobs are kept. Jobs are
/// forgotten oldest first (see ``Window``), so a job that runs for long keeps the jobs added
/// after it until it ends.
extension SchedulerState {
    /// Adds a job from outside. Its needs must be jobs the queue still keeps. Its outcome goes
    /// to `ticket` when it ends.
    /// - Throws: ``WorkflowError`` when the queue is closed, for an ID of a job that has not
    ///   ended, an unknown or forgotten need, an undeclared lane or a bad option.
    mutating func add(_ request: ChildRequest, ticket: JobTicket? = nil) throws -> (Int32, Actions) {
        let id = request.name
        func failure(_ code: WorkflowError.Code, _ message: String, _ jobs: [JobID] = []) -> WorkflowError {
            WorkflowError(code: code, message: message, jobs: jobs.isEmpty ? [id] : jobs)
        }
        guard isOpen else { throw failure(.invalidOption, "job '\(id)' was added to a queue that was closed") }
        if let existing = job(id), !jobs[existing].phase.isTerminal {
            throw failure(.duplicateJob, "job '\(id)' was added while a job with that ID is still in the queue")
        }
        if let problem = request.job.options?.problem(job: id) { throw failure(.invalidOption, problem) }
        var lane: Int?
        if let name = request.job.lane {
            guard let found = lanes.firstIndex(where: { $0.name == name }) else {
                throw failure(.unknownLane, "job '\(id)' uses lane '\(name)', which the queue never declared with lane(_:width:)")
            }
            guard lanes[found].width >= 1 else {
                throw failure(.invalidLaneWidth, "lane '\(name)' has width \(lanes[found].width); a lane's width must be at least 1")
            }
            lane = found
        }
        var needs: [Int32] = []
        for name in request.job.needs {
            guard let need = job(name) else {
                throw failure(
                    .unknownNeed,
                    "job '\(id)' needs '\(name)', which is not in the queue: never added, or ended and forgotten (see keepFinished)",
                    [id, name])
            }
            needs.append(need)
        }
        var key: Int32?
        if let options = request.job.options, let name = options.coalesce {
            let number = try coalescing.use(name, job: id, type: options.valueType, ids: plan.ids)
            coalescing.retain(number, name: name)
            key = number
        }

        let job = appendJob(JobState(lane: lane, priority: request.job.priority))
        added.append(
            AddedJob(
                id: id, body: request.job.body, hasValue: request.job.hasValue,
                parent: nil, needs: needs, lane: lane, key: key),
            options: request.job.options, as: job)
        if let lane { lanes[lane].enter(job) }
        if let ticket { added.tickets[job] = ticket }
        for need in needs { added[need].readers += 1 }
        admitAdded(job, needs: needs, raising: request.job.priority)
        return (job, flush())
    }

    /// No more jobs will be added: the queue ends when every job in it has.
    mutating func close() -> Actions {
        isOpen = false
        return flush()
    }

    /// Declares a lane of a queue, or changes the width of one (for the slots it gives from
    /// now on).
    mutating func declareLane(_ name: String, width: Int, ordered: Bool) -> Actions {
        if let lane = lanes.firstIndex(where: { $0.name == name }) {
            lanes[lane].resize(to: width)
            admit(lane: lane)
        } else {
            lanes.append(Lane(name: name, width: width, ordered: ordered))
        }
        return flush()
    }

    /// A caller waits for `job` to end: `waiter` is resumed when it has (at once if it has).
    /// The job is kept until the caller read it (``doneReading(_:)``).
    mutating func watch(_ job: Int32, _ waiter: Waiter) -> Actions {
        if !isPlanned(job) { added[job].readers += 1 }
        if jobs[job].phase.isTerminal {
            outbox.resume.append(waiter)
        } else {
            watchers[job, default: []].append(waiter)
        }
        return flush()
    }

    /// A caller that watched `job` has read its outcome.
    mutating func doneReading(_ job: Int32) -> Actions {
        if !isPlanned(job), jobs.contains(job) { added[job].readers -= 1 }
        return flush()
    }

    /// A queue's job ended: its outcome goes to its ticket, the jobs it needed may be
    /// forgotten, and so may its key.
    mutating func endedInQueue(_ job: Int32) {
        guard !isPlanned(job) else { return }
        if !added.tickets.isEmpty, let ticket = added.tickets.removeValue(forKey: job) { ticket.fill(result(of: job)) }
        for need in added[job].needs where jobs.contains(need) { added[need].readers -= 1 }
        if let key = added[job].key, coalescing.release(key) { dropRun(key) }
    }

    /// What a caller of ``JobQueue/value(of:)`` gets for `job`, which has ended.
    func result(of job: Int32) -> Result<any Sendable, any Error> {
        if jobs[job].phase == .succeeded { return .success(value(of: job) ?? ()) }
        return .failure(error(of: job) ?? JobError(code: .cancelled, underlying: nil, path: [id(of: job)]))
    }

    /// Forgets a key's run; a queue no longer keeps its leader for it.
    mutating func dropRun(_ key: Int32) {
        guard let run = coalescing[key] else { return }
        coalescing[key] = nil
        if keepFinished != nil, !isPlanned(run.leader), jobs.contains(run.leader) { added[run.leader].readers -= 1 }
    }

    /// Raises `job`, which a job of `priority` needs, and what it waits for, to that priority
    /// (priority inheritance, for jobs that have not started).
    mutating func raise(_ job: Int32, to priority: Priority) {
        var stack = [job]
        while let current = stack.popLast() {
            guard jobs[current].priority < priority, jobs[current].phase.isPending else { continue }
            jobs[current].priority = priority
            if jobs[current].phase == .queued {
                // Queued again at its new priority; the old entry is passed over when popped.
                ready.append(current, priority: priority, child: isChild(current))
                ready.markStale()
            }
            if !isPlanned(current) { stack += added[current].needs }
        }
    }

    /// Forgets the oldest finished jobs that no one can ask for any more, beyond the newest
    /// `keepFinished`.
    mutating func forgetFinished() {
        guard let keepFinished else { return }
        while jobs.count - unfinished > keepFinished, !jobs.isEmpty {
            let oldest = jobs.base
            guard jobs[oldest].phase.isTerminal, added[oldest].readers <= 0 else { return }
            failures[oldest] = nil
            if !upToDate.isEmpty { upToDate.remove(oldest) }
            groups.forget(oldest)
            added.dropOldest(oldest)
            jobs.dropOldest()
            unmetNeeds.dropOldest()
        }
    }
}
