/// Cancelling, timing out and abandoning jobs.
///
/// A running job is stopped in two steps. First its body is cancelled (Swift task cancellation)
/// and the job is listed in ``SchedulerActions/abandonLater``. A body that returns within the
/// grace period ends the job as usual. A body that ignores cancellation is abandoned when the
/// grace period passes (``abandon(_:progress:now:)``): the job ends without it, its worker slot
/// and lane slot are freed, and whatever the body returns later is discarded.
extension SchedulerState {
    /// Cancels the whole run: nothing more starts, and every running job is cancelled; at the
    /// deadline, running jobs are reported timed out (unless they still return a value).
    mutating func cancelAll(reason: StopReason, now: Int64) -> Actions {
        guard !isFinished else { return flush() }
        if now > clock { clock = now }
        if stopReason == nil || reason == .deadline { stopReason = reason }
        let code: JobError.Code = reason == .deadline ? .deadlineExceeded : .cancelled
        endPending(code: code, phase: .cancelled, cause: nil)
        let running = jobs.numbers.filter { jobs[$0].phase == .running }
        if reason == .deadline {
            for job in running where limits[job] == nil { limits[job] = (now, .deadlineExceeded) }
        }
        // Cancelling a parent ends its children that share a result at once: check each again.
        for job in running where jobs[job].phase == .running && !cancelRequested.contains(job) {
            cancelRunning(job, now: now)
        }
        return flush()
    }

    /// Cancels one job: if it has not started it never will, and its dependents are skipped;
    /// if it is running, its body is cancelled. Its children are cancelled with it. A finished
    /// job is left as it is.
    mutating func cancel(_ job: Int32, now: Int64) -> Actions {
        // A queue may have forgotten the job since its caller looked it up.
        guard !isFinished, jobs.contains(job) else { return flush() }
        if now > clock { clock = now }
        closeBatch(holding: job)  // not begun, it is queued again; begun, it runs in its slot
        switch jobs[job].phase {
        case .waiting, .laneWaiting, .queued:
            end(job, .cancelled, FailureRecord(code: .cancelled))
        case .running:
            cancelRunning(job, now: now)
        default:
            break
        }
        return flush()
    }

    /// The job's own timeout passed while it ran: cancel it; it ends timed out.
    mutating func timeOut(_ job: Int32, now: Int64) -> Actions {
        // The timer may fire after the job ended, and a queue may have forgotten it since.
        guard !isFinished, jobs.contains(job), jobs[job].phase == .running else { return flush() }
        closeBatch(holding: job)
        guard jobs[job].phase == .running else { return flush() }  // given back: its timer is moot
        if limits[job] == nil { limits[job] = (now, .timedOut) }
        cancelRunning(job, now: now)
        return flush()
    }

    /// Where a running job's worker is, for ``abandon(_:progress:now:)``: its caller reads the
    /// worker's progress (which the worker writes without the lock) and passes it in.
    func slotRunning(_ job: Int32) -> (slot: Int, generation: UInt32)? {
        guard jobs.contains(job), jobs[job].phase == .running, let slot = workers.slot(running: job) else { return nil }
        return (slot, workers[slot].generation)
    }

    /// The grace period after cancelling `job` passed and it is still running: end it without
    /// its body. Its worker is detached (what it returns later is discarded) and a new worker
    /// may take its place. `progress` is what its worker reported: when its body began and its
    /// attempt, or nil when the body has not even begun (its worker was not scheduled yet);
    /// then it gets another grace period, not having had the chance to see the cancellation.
    /// `earlier` are the ends its worker has not reported of the jobs of its batch it ran
    /// before `job` (see ``WorkerProbe``): they end now, as they would have with its report.
    mutating func abandon(
        _ job: Int32, progress: (startedAt: Int64, attempt: Int)?, earlier: [(job: Int32, completion: Completion)] = [], now: Int64
    ) -> Actions {
        guard jobs.contains(job), jobs[job].phase == .running else { return flush() }
        closeBatch(holding: job)
        guard jobs[job].phase == .running else { return flush() }
        var startedAt = now
        var attempts = 1
        if let slot = workers.slot(running: job) {
            guard let progress else {
                outbox.abandonLater.append(job)
                return flush()
            }
            (startedAt, attempts) = progress
            if workers[slot].suspended {
                // A parent waiting for its children: its waits resume now, outside the pool (it
                // is detached), and it takes back its lane slot so that ending it frees one.
                let (pending, queued) = groups.abandonWaits(of: job, slot: slot)
                outbox.resume.append(contentsOf: pending)
                for entry in queued {
                    if entry.reserved { reserveLane(for: job, by: -1) }
                    outbox.resume.append(entry.waiter)
                }
                if let lane = jobs[job].lane { lanes[lane].take() }
            }
            settleAwaiting(slot: slot, earlier: earlier, now: now)
            workers.detach(slot)
        } else {
            startedAt = jobs[job].startedAt ?? 0
            attempts = 0
        }
        settle(job, Completion(result: .threw(CancellationError()), attempts: attempts, startedAt: startedAt, endedAt: now))
        return flush()
    }

    /// Ends the jobs of `slot`'s closed batch whose bodies returned, from its worker's ends not
    /// yet reported, before the worker is detached. One missing from them (never, as the worker
    /// records each end before it begins the next job) ends cancelled rather than never.
    private mutating func settleAwaiting(slot: Int, earlier: [(job: Int32, completion: Completion)], now: Int64) {
        for ran in workers[slot].awaiting where jobs[ran].phase == .running {
            let end = earlier.first { $0.job == ran }?.completion
                ?? Completion(result: .threw(CancellationError()), attempts: 1, startedAt: jobs[ran].startedAt ?? now, endedAt: now)
            settle(ran, end)
        }
        workers.endBatch(slot)
    }

    /// Whether `job`, whose attempt failed in the worker of `slot` and `generation`, may be tried
    /// again: the worker still runs it, no cancel or timeout was decided for it, and the run has
    /// not ended. A worker asks before each retry, since a cancel decided here reaches its task
    /// only after the lock is released, and its attempt may have failed because of it.
    func mayRetry(_ job: Int32, slot: Int, generation: UInt32) -> Bool {
        !isFinished && slot < workers.slots.count && workers[slot].generation == generation && workers[slot].job == job
            && !cancelRequested.contains(job)
    }

    /// Cancels a running job and its children.
    mutating func cancelRunning(_ job: Int32, now: Int64) {
        stopBody(of: job, now: now)
        cancelDescendants(of: job, now: now)
    }

    /// Cancels a running job's worker task, to be abandoned if it has not returned after the
    /// grace period; a job sharing a coalesced leader's result has no body, so it ends now.
    private mutating func stopBody(of job: Int32, now: Int64) {
        guard jobs[job].phase == .running else { return }
        guard let slot = workers.slot(running: job) else {
            // A job of a closed batch whose body returned: it ends with its worker's report.
            if batchLimit > 1, workers.isAwaitingReport(job) { return }
            settle(job, Completion(result: .threw(CancellationError()), attempts: 0, startedAt: jobs[job].startedAt ?? 0, endedAt: now))
            return
        }
        cancelRequested.insert(job)
        workers[slot].retiring = true
        outbox.cancel.append((slot, workers[slot].generation))
        outbox.abandonLater.append(job)
    }

    /// Cancels every child of `job` that has not ended, and their children.
    mutating func cancelDescendants(of job: Int32, now: Int64) {
        guard !groups.isEmpty else { return }
        var stack = [job]
        while let parent = stack.popLast() {
            for child in groups.children(of: parent) {
                switch jobs[child].phase {
                case .waiting, .laneWaiting, .queued:
                    end(child, .cancelled, FailureRecord(code: .cancelled))
                case .running where !cancelRequested.contains(child):
                    stopBody(of: child, now: now)
                default:
                    break
                }
                stack.append(child)
            }
        }
    }

    /// After a failed attempt, the job's children that have not ended are cancelled.
    mutating func cancelChildren(of job: Int32, now: Int64) -> Actions {
        cancelDescendants(of: job, now: now)
        return flush()
    }

    /// Ends every job that has not started, the jobs of batches not begun included.
    mutating func endPending(code: JobError.Code, phase newPhase: JobPhase, cause: Int32?) {
        closeBatches()
        // Jobs that joined a leader given back by a batch end with it, as it has not begun.
        let joiners = coalescing.isEmpty ? [] : joinersOfPending
        for job in jobs.numbers.filter({ jobs[$0].phase.isPending }) + joiners {
            failures[job] = FailureRecord(code: code, underlying: nil, cause: cause)
            jobs[job].startedAt = nil
            setPhase(job, newPhase)
        }
        // Every job that waited for another has ended: no one is left to release.
        added.dependents.removeAll()
        for lane in lanes.indices { lanes[lane].clearSlots() }
        // Running jobs hold their lane slots, except parents waiting for their children.
        for job in jobs.numbers where jobs[job].phase == .running {
            if let lane = jobs[job].lane { lanes[lane].take() }
        }
        for slot in workers.slots where slot.suspended {
            if let job = slot.job, let lane = jobs[job].lane { lanes[lane].release() }
        }
    }
}
