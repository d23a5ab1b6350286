/// The run's timers: attempts' timeouts and cancelled jobs' grace periods, in one
/// ``RunTimers`` behind its own lock, driven by at most one task sleeping on the run's clock.
extension RunCore {
    /// The timers and the driver task that sleeps until the earliest of them.
    struct Timers: Sendable {
        var queue = RunTimers()
        var driver: Task<Void, Never>?
    }

    /// Adds a watch of the worker of `probe`, due at `deadline` (see ``AttemptTimer``).
    func watch(_ probe: WorkerProbe, at deadline: Int64) {
        if let driver = runTimers.withLock({ $0.queue.watch(probe, at: deadline) }) { startDriver(driver) }
    }

    /// Starts the driver task that `start` asks for; it replaces the one sleeping until later.
    func startDriver(_ start: RunTimers.Start) {
        let task = Task { [self] in await drive(start) }
        let replaced = runTimers.withLock { timers -> Task<Void, Never>? in
            // A driver started since (for an earlier timer), or the run's end, overtook this one.
            guard timers.queue.isCurrent(start.id) else { return task }
            defer { timers.driver = task }
            return timers.driver
        }
        replaced?.cancel()
    }

    /// The run ended: cancels the driver, and no timer fires any more.
    func closeTimers() {
        runTimers.withLock { timers -> Task<Void, Never>? in
            timers.queue.close()
            defer { timers.driver = nil }
            return timers.driver
        }?.cancel()
    }

    private func drive(_ start: RunTimers.Start) async {
        var wakesAt = start.wakesAt
        while true {
            do { try await time.sleep(untilOffset: wakesAt) } catch { return }
            awake: while true {
                let now = time.now()
                switch runTimers.withLock({ $0.queue.wake(start.id, now: now) }) {
                case .fire(let due):
                    fire(due)
                case .sleep(let until):
                    wakesAt = until
                    break awake
                case .stop:
                    return
                }
            }
        }
    }

    /// Carries out timers that fired, earliest first.
    private func fire(_ due: [RunTimers.Timer]) {
        var index = 0
        while index < due.count {
            let timer = due[index]
            switch timer.kind {
            case .watch:
                index += 1
                guard let probe = timer.probe else { break }  // a watch always has one
                switch probe.wakeTimer(now: time.now()) {
                case .timeOut(let job, let deadline):
                    step { $0.scheduler.timeOut(job, now: deadline) }
                case .watchAgain(let deadline):
                    watch(probe, at: deadline)
                case .none:
                    break
                }
            case .gracePeriod:
                // Grace periods that passed together are abandoned in one step.
                step { state in
                    var actions = Scheduler.Actions()
                    while index < due.count, due[index].kind == .gracePeriod {
                        let job = due[index].job
                        // The worker's report of its body, read under the lock so that it is
                        // the report of the worker the scheduler has in that slot.
                        let probe = state.scheduler.slotRunning(job).flatMap { slot, generation in
                            slot < state.workers.count && state.workers[slot]?.generation == generation
                                ? state.workers[slot]?.probe : nil
                        }
                        actions.append(state.scheduler.abandon(
                            job, progress: probe?.progress(of: job), earlier: probe?.endedSoFar ?? [], now: due[index].deadline))
                        index += 1
                    }
                    return actions
                }
            }
        }
    }
}

extension Int64 {
    /// `self + other`, or the nearest bound when that overflows: a clock reading plus a timeout
    /// of `.seconds(.max)` is never due, rather than a crash.
    func saturatingPlus(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other < 0 ? .min : .max) : sum
    }
}
