import Foundation
import Sequencer

/// Claimed jobs in the local queue, and their ends: gathered for the worker's next turn, which
/// records them in one transaction.
extension WorkLoop {
    /// Runs claimed jobs in the local queue.
    func start(_ claimed: [ClaimedJob]) {
        let kinds = queue.kinds.withLock { $0 }
        for job in claimed {
            let id = Self.localName(of: job)
            state.withLock { state in
                state.claims += 1
                state.running[job.id] = Running(job: job, local: id, claim: state.claims)
                state.byLocal[id] = job.id
            }
            guard let kind = kinds[job.kind] else {
                release(id)
                continue
            }
            do {
                try local.add(id, priority: job.priority, timeout: job.timeout) { [self] context in
                    state.withLock { _ = $0.bodies.insert(id) }
                    do {
                        let output = try await queue.tracer.attempt(job) { try await kind.run(job.input, context) }
                        returned(id, .success(output))
                    } catch {
                        returned(id, .failure(error))
                        throw error
                    }
                }
            } catch {
                release(id)
            }
        }
    }

    /// A body returned. Its result is kept for its job's end, while the job has not ended: a
    /// body abandoned after its timeout may return long after its end was recorded. A job
    /// given up on as work stopped ends now, as its body says (see ``awaitAbandonedBodies()``).
    func returned(_ id: JobID, _ result: Result<Data, any Error>) {
        let (now, nanoseconds) = (clock.now(), clock.nanoseconds())
        state.withLock { state in
            state.bodies.remove(id)
            if state.byLocal[id] != nil {
                state.results[id] = result
            } else if let abandoned = state.abandoned.removeValue(forKey: id), let running = state.running[abandoned.durable] {
                let outcome = Self.outcome(of: running, status: abandoned.status, result: result, stopping: state.stopping, now: now)
                state.end(running, outcome, owner: owner, ranNanoseconds: running.startedAt.map { nanoseconds - $0 })
            }
        }
    }

    /// Waits for the bodies given up on as work stopped (they ignored their cancellation past
    /// the local queue's grace period), for up to a lease: their jobs stay this worker's, their
    /// leases renewed, so that a body that returns a value has its job recorded as done rather
    /// than run again elsewhere, perhaps beside it. The jobs of those still out then are released.
    func awaitAbandonedBodies() async {
        let limit = ContinuousClock.now + options.lease
        while state.withLock({ !$0.abandoned.isEmpty }), ContinuousClock.now < limit {
            try? await Task.sleep(for: .milliseconds(2))
        }
        state.withLock { state in
            for abandoned in state.abandoned.values {
                guard let running = state.running[abandoned.durable] else { continue }
                state.end(running, .released, owner: owner, ranNanoseconds: nil)
            }
            state.abandoned = [:]
        }
    }

    /// A job that could not start here goes back to the store at once.
    func release(_ id: JobID) {
        state.withLock { state in
            guard let durable = state.byLocal.removeValue(forKey: id), let running = state.running[durable] else { return }
            state.end(running, .released, owner: owner, ranNanoseconds: nil)
        }
        queue.doorbell.ring()
    }

    /// A local job ended: its end is gathered for the next turn.
    ///
    /// The worker takes a turn (one transaction) once as many of its claimed jobs have ended
    /// as have not (half of a full claim), or once the local queue has no claimed job left
    /// beyond its running slots (it needs more); an end waits at most ``endHold`` otherwise. So
    /// a backlog of short jobs is recorded and claimed in batches, not a transaction per job,
    /// and a turn comes while half its jobs still run (their dependents, released by the ends,
    /// are claimed meanwhile).
    func ended(_ id: JobID, _ status: JobStatus) {
        let now = clock.now()
        let nanoseconds = clock.nanoseconds()
        let wake = state.withLock { state -> Bool? in
            guard let durable = state.byLocal.removeValue(forKey: id), let running = state.running[durable] else { return nil }
            let result = state.results.removeValue(forKey: id)
            if running.givenUp {
                // Its attempt began: ending it as released would give its number to the next
                // (two runs of one attempt, the fence by attempt blind between them), and would
                // let another worker start it while this body may still run. Its lease, no
                // longer renewed, runs out, and the job is taken back as after a crash.
                state.running[durable] = nil
                return nil
            }
            let outcome = Self.outcome(
                of: running, status: status, result: result, stopping: state.stopping, now: now)
            if case .released = outcome, case nil = result, state.bodies.contains(id) {
                // Given up on, its body still runs and may yet return a value: ended now as
                // released, the job could run again elsewhere beside it, and be done twice.
                state.abandoned[id] = Abandoned(durable: durable, status: status)
                return nil
            }
            state.end(running, outcome, owner: owner, ranNanoseconds: running.startedAt.map { nanoseconds - $0 })
            if case .failure(is CannotRunHere)? = result {
                state.refused[running.job.kind] = now + QueueClock.milliseconds(Self.refusedKindPause)
            }
            if state.ends.count >= state.byLocal.count || state.byLocal.count <= slots { return true }
            // The first end held: the worker's turn comes within the hold.
            return state.ends.count == 1 ? false : nil
        }
        switch wake {
        case true?:
            queue.doorbell.ring()
        case false?:
            Task { [queue] in
                try? await Task.sleep(for: Self.endHold)
                queue.doorbell.ring()
            }
        case nil:
            break
        }
    }

    /// How long an end waits for others to share its transaction, at most.
    static let endHold = Duration.milliseconds(5)

    static func outcome(
        of running: Running, status: JobStatus, result: Result<Data, any Error>?, stopping: Bool, now: Int64
    ) -> AttemptEnd.Outcome {
        let job = running.job
        switch (status, result) {
        case (.succeeded, .success(let output)?):
            return .succeeded(output)
        case (.failed, .failure(is CannotRunHere)?):
            return .released
        case (.failed, .failure(let error as UndecodableInput)?):
            return .failed(code: "undecodableInput", message: error.description, retryAt: nil)
        case (.failed, .failure(let error)?):
            let policy = job.retry.policy
            var retryAt: Int64?
            if job.attempt < policy.maxAttempts,
                let delay = policy.delay(after: error, beforeAttempt: job.attempt + 1, random: Double.random(in: 0..<1))
            {
                retryAt = now + QueueClock.milliseconds(delay)
            }
            return .failed(code: "failed", message: "\(error)", retryAt: retryAt)
        case (.timedOut, _):
            let limit = job.timeout.map { " after \($0)" } ?? ""
            return .failed(code: "timedOut", message: "attempt \(job.attempt) timed out\(limit)", retryAt: nil)
        case (.cancelled, .success(let output)?) where !running.cancelled:
            // Its body returned as work stopped (a drain's grace ran out, say): it is done, and
            // running it again would repeat it (the drain stress test found one run twice).
            return .succeeded(output)
        case (.cancelled, _) where running.cancelled:
            return .cancelled
        default:
            // Cancelled because work stopped, or an end with no result: the job runs again.
            return stopping || status == .cancelled
                ? .released
                : .failed(code: "failed", message: "attempt \(job.attempt) ended \(status) without a result", retryAt: nil)
        }
    }

    /// The ends gathered since the last turn, to record.
    func takeEnds() -> [AttemptEnd] {
        state.withLock { state in
            defer { state.ends = [] }
            return state.ends
        }
    }

    /// A local job's body started.
    /// A local job's body started: the metrics count its wait from when it could run (a job
    /// claimed ahead waits in the worker too).
    func started(_ id: JobID) {
        let (now, nanoseconds) = (clock.now(), clock.nanoseconds())
        let job = state.withLock { state -> ClaimedJob? in
            guard let durable = state.byLocal[id] else { return nil }
            state.running[durable]?.startedAt = nanoseconds
            return state.running[durable]?.job
        }
        if let job, let since = job.availableSince {
            queue.metrics.waited(kind: job.kind, lane: job.lane, milliseconds: now - since)
        }
    }

    /// Ends the store has recorded, or refused (`recorded[i]` false: fenced): their jobs are
    /// no longer this worker's. Each is counted in the metrics.
    func recorded(_ ends: [AttemptEnd], _ recorded: [Bool]) {
        let measured = state.withLock { state in
            ends.map { end in
                state.running[end.id] = nil
                return state.measures.removeValue(forKey: AttemptKey(id: end.id, attempt: end.attempt))
            }
        }
        for (index, end) in ends.enumerated() {
            guard let measure = measured[index] else { continue }
            let status = Self.status(of: end.outcome, recorded: index < recorded.count ? recorded[index] : false)
            queue.metrics.ended(kind: measure.kind, lane: measure.lane, status: status, ranNanoseconds: measure.ranNanoseconds)
        }
    }

    /// An end's status in the metrics (``QueueMetricNames/ended``).
    static func status(of outcome: AttemptEnd.Outcome, recorded: Bool) -> String {
        guard recorded else { return "fenced" }
        switch outcome {
        case .succeeded: return "succeeded"
        case .failed(_, _, .some): return "retried"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        case .released: return "released"
        }
    }

    /// Writes the gathered ends in one transaction (when work stops).
    func flush() async throws {
        let ends = takeEnds()
        guard !ends.isEmpty else { return }
        let done: [Bool]
        do {
            let now = clock.now()
            // A turn that claims nothing: it says what the ends skipped, as `finish` does not.
            let turn = try await bounded("recording ends") {
                try await $0.finishAndClaim(ends, kinds: [], limit: 0, slots: 0, owner: "", now: now, leaseUntil: now)
            }
            done = turn.recorded
            queue.metrics.storeEnded(turn.skipped)
        } catch {
            state.withLock { $0.ends = ends + $0.ends }
            throw error
        }
        recorded(ends, done)
        queue.doorbell.ring()
    }
}

extension WorkLoop.State {
    /// Gathers a claimed job's end for the next turn, and what the metrics report of it.
    mutating func end(_ running: WorkLoop.Running, _ outcome: AttemptEnd.Outcome, owner: String, ranNanoseconds: Int64?) {
        let job = running.job
        ends.append(AttemptEnd(id: job.id, attempt: job.attempt, owner: owner, outcome: outcome))
        measures[WorkLoop.AttemptKey(id: job.id, attempt: job.attempt)] = WorkLoop.Measure(
            kind: job.kind, lane: job.lane, ranNanoseconds: ranNanoseconds)
    }
}
