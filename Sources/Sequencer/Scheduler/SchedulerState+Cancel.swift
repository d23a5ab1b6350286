import Synchronization

/// Cancelling, timing out and abandoning jobs.
///
/// A running job is stopped in two steps. First its body is cancelled (Swift task cancellation)
/// and the job is listed in ``Actions/abandonLater``. A body that returns within the grace
/// period ends the job as usual. A body that ignores cancellation is abandoned when the grace
/// period passes (``abandon(_:now:into:)``): the job ends without it, its worker slot and lane
/// slot are freed, and whatever the body returns later is discarded.
extension SchedulerState {
    /// Cancels the whole run: nothing more starts, and every running job is cancelled; at the
    /// deadline, running jobs are reported timed out (unless they still return a value).
    mutating func cancelAll(reason: StopReason, now: Int64) -> Actions {
        var actions = Actions()
        guard !isFinished else { return actions }
        if now > clock { clock = now }
        if stopReason == nil || reason == .deadline { stopReason = reason }
        let code: JobError.Code = reason == .deadline ? .deadlineExceeded : .cancelled
        endPending(code: code, phase: .cancelled, cause: -1)
        let running = jobs.indices.filter { jobs[$0].phase == .running }.map { Int32($0) }
        if reason == .deadline {
            for job in running where limits[job] == nil { limits[job] = (now, .deadlineExceeded) }
        }
        // Cancelling a parent ends its children that share a result at once: check each again.
        for job in running where jobs[Int(job)].phase == .running && !cancelRequested.contains(job) {
            cancelRunning(job, now: now, into: &actions)
        }
        dispatch(into: &actions)
        if isFinished { finishRun(into: &actions) }
        return actions
    }

    /// Cancels one job: if it has not started it never will, and its dependents are skipped;
    /// if it is running, its body is cancelled. Its children are cancelled with it. A finished
    /// job is left as it is.
    mutating func cancel(_ job: Int32, now: Int64) -> Actions {
        var actions = Actions()
        guard !isFinished else { return actions }
        if now > clock { clock = now }
        switch jobs[Int(job)].phase {
        case .waiting, .laneWaiting, .queued:
            end(job, .cancelled, FailureRecord(code: .cancelled))
        case .running:
            cancelRunning(job, now: now, into: &actions)
        default:
            break
        }
        dispatch(into: &actions)
        if isFinished { finishRun(into: &actions) }
        return actions
    }

    /// The job's own timeout passed while it ran: cancel it; it ends timed out.
    mutating func timeOut(_ job: Int32, now: Int64) -> Actions {
        var actions = Actions()
        guard !isFinished, jobs[Int(job)].phase == .running else { return actions }
        if limits[job] == nil { limits[job] = (now, .timedOut) }
        cancelRunning(job, now: now, into: &actions)
        dispatch(into: &actions)
        if isFinished { finishRun(into: &actions) }
        return actions
    }

    /// The grace period after cancelling `job` passed and it is still running: end it without
    /// its body. Its worker is detached (what it returns later is discarded) and a new worker
    /// may take its place. A body that has not even begun (its worker was not scheduled yet)
    /// gets another grace period: it has not had the chance to see the cancellation.
    mutating func abandon(_ job: Int32, now: Int64, into actions: inout Actions) {
        guard jobs[Int(job)].phase == .running else { return }
        var startedAt = now
        var attempts = 1
        if let slot = workerJob.firstIndex(of: job) {
            guard let progress = workerProbe[slot]?.progress(of: job) else {
                actions.abandonLater.append(job)
                return
            }
            (startedAt, attempts) = progress
            if workerSuspended[slot] {
                // A parent waiting for its children: its waits resume now, outside the pool (it
                // is detached), and it takes back its lane slot so that ending it frees one.
                for waiter in groups[job]?.waiters ?? [] { actions.resume.append(waiter.continuation) }
                groups[job]?.waiters = []
                for entry in resumable where entry.slot == slot {
                    if entry.reserved { reserveLane(for: job, by: -1) }
                    actions.resume.append(entry.continuation)
                }
                resumable.removeAll { $0.slot == slot }
                if jobs[Int(job)].lane >= 0 { laneUsed[Int(jobs[Int(job)].lane)] += 1 }
                workerSuspended[slot] = false
            } else {
                liveWorkers -= 1
            }
            workerGeneration[slot] &+= 1
            workerJob[slot] = -1
            workerTask[slot] = nil
            workerProbe[slot] = nil
            workerRetiring[slot] = false
            freeSlots.append(slot)
        } else {
            startedAt = max(0, jobs[Int(job)].startedAt)
            attempts = 0
        }
        settle(job, Completion(result: .threw(CancellationError()), attempts: attempts, startedAt: startedAt, endedAt: now))
        dispatch(into: &actions)
        if isFinished { finishRun(into: &actions) }
    }

    /// Cancels a running job and its children.
    mutating func cancelRunning(_ job: Int32, now: Int64, into actions: inout Actions) {
        stopBody(of: job, now: now, into: &actions)
        cancelDescendants(of: job, now: now, into: &actions)
    }

    /// Cancels a running job's worker task, to be abandoned if it has not returned after the
    /// grace period; a job sharing a coalesced leader's result has no body, so it ends now.
    private mutating func stopBody(of job: Int32, now: Int64, into actions: inout Actions) {
        guard jobs[Int(job)].phase == .running else { return }
        guard let slot = workerJob.firstIndex(of: job) else {
            settle(job, Completion(result: .threw(CancellationError()), attempts: 0, startedAt: max(0, jobs[Int(job)].startedAt), endedAt: now))
            return
        }
        cancelRequested.insert(job)
        workerRetiring[slot] = true
        if let task = workerTask[slot] { actions.cancelWorkers.append(task) }
        actions.abandonLater.append(job)
    }

    /// Cancels every child of `job` that has not ended, and their children.
    mutating func cancelDescendants(of job: Int32, now: Int64, into actions: inout Actions) {
        guard !groups.isEmpty else { return }
        var stack = [job]
        while let parent = stack.popLast() {
            guard let children = groups[parent]?.children else { continue }
            for child in children {
                switch jobs[Int(child)].phase {
                case .waiting, .laneWaiting, .queued:
                    end(child, .cancelled, FailureRecord(code: .cancelled, underlying: nil, cause: -1))
                case .running where !cancelRequested.contains(child):
                    stopBody(of: child, now: now, into: &actions)
                default:
                    break
                }
                stack.append(child)
            }
        }
    }

    /// Ends every job that has not started.
    mutating func endPending(code: JobError.Code, phase newPhase: JobPhase, cause: Int32) {
        for job in jobs.indices where jobs[job].phase.isPending {
            let job = Int32(job)
            failures[job] = FailureRecord(code: code, underlying: nil, cause: cause)
            setPhase(job, newPhase)
        }
        for lane in laneUsed.indices {
            laneUsed[lane] = 0
            laneHasQueued[lane] = false
        }
        // Running jobs hold their lane slots, except parents waiting for their children.
        for job in jobs.indices where jobs[job].phase == .running && jobs[job].lane >= 0 {
            laneUsed[Int(jobs[job].lane)] += 1
        }
        for slot in workerJob.indices where workerSuspended[slot] && workerJob[slot] >= 0 {
            let lane = jobs[Int(workerJob[slot])].lane
            if lane >= 0 { laneUsed[Int(lane)] -= 1 }
        }
    }
}

/// What a worker tells the scheduler about the job it runs, without taking the lock: read only
/// when its job is about to be abandoned, to know whether its body began, when, and how many
/// attempts it made.
final class WorkerProbe: Sendable {
    private let job = Atomic<Int32>(-1)
    private let start = Atomic<Int64>(-1)
    private let attempts = Atomic<Int>(0)

    /// The worker began running `job`'s body.
    func started(_ job: Int32, at time: Int64) {
        start.store(time, ordering: .relaxed)
        attempts.store(1, ordering: .relaxed)
        self.job.store(job, ordering: .releasing)
    }

    func attempting(_ attempt: Int) { attempts.store(attempt, ordering: .relaxed) }

    /// When the worker began `job`'s body and its attempt now, or nil when it has not begun it.
    func progress(of job: Int32) -> (startedAt: Int64, attempt: Int)? {
        guard self.job.load(ordering: .acquiring) == job else { return nil }
        return (start.load(ordering: .relaxed), attempts.load(ordering: .relaxed))
    }
}
