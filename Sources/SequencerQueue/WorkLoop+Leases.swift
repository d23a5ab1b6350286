import Foundation
import Sequencer

/// The worker's leases: renewed every heartbeat, and given up, with the jobs they hold, when
/// they can no longer be renewed in time; a cancel heard from the store stops a running job.
extension WorkLoop {
    /// Renews this worker's leases every heartbeat (or at once when `now` rings: a cancel was
    /// heard), and stops the jobs it should no longer run.
    ///
    /// A worker that cannot renew its leases gives its jobs up before they run out: when the
    /// next heartbeat would come after the last renewal's lease ends, its running bodies are
    /// cancelled and their leases left to run out (another worker may take them once they
    /// have; never two at once). A turn stuck in the store for half a lease makes the
    /// heartbeat stop renewing, for the same end: the jobs go on elsewhere, not in a worker
    /// that cannot record them.
    func beat(_ now: Doorbell) async {
        var rung = now.version
        let lease = QueueClock.milliseconds(options.lease)
        var renewed = clock.now()
        while !Task.isCancelled {
            do {
                try await now.wait(after: rung, upTo: options.heartbeat, clock: clock)
                rung = now.version
                let (held, turnSince) = state.withLock { ($0.running.mapValues(\.claim), $0.turnSince) }
                let jobs = Array(held.keys)
                let now = clock.now()
                if let turnSince, now - turnSince >= lease / 2 {
                    throw QueueError(code: .database, location: "\(store)", message: "a turn has waited for the store since \(now - turnSince) ms")
                }
                let owner = owner
                let stop = try await bounded("renewing leases", within: options.lease / 2) {
                    try await $0.heartbeat(owner: owner, jobs: jobs, leaseUntil: now + lease, now: now)
                }
                renewed = now
                await recordBeat()
                // A job may have ended since `held` was read, and been claimed again: the
                // answer was about the earlier claim (a job no longer held), not this one.
                for id in stop { if let claim = held[id] { cancel(id, claim: claim) } }
            } catch {
                if Task.isCancelled { return }
                let now = clock.now()
                if now + QueueClock.milliseconds(options.heartbeat) >= renewed + lease { giveUpRunningJobs() }
            }
        }
    }

    /// Cancels every running body: this worker can no longer hold their leases. No end is
    /// recorded for them (their attempts began); their leases run out and the jobs are taken
    /// back, by this worker or another, as after a crash, never while a lease holds.
    func giveUpRunningJobs() {
        let locals = state.withLock { state in
            state.running.values.filter { state.byLocal[$0.local] != nil }.map { running in
                state.running[running.job.id]?.givenUp = true
                return running.local
            }
        }
        for id in locals { local.cancel(id) }
    }

    /// Cancels a job this worker runs.
    func cancel(_ id: DurableJobID) {
        cancel(id, claim: nil)
    }

    /// Cancels a job this worker runs, if it is still claim number `claim` (any claim if nil).
    func cancel(_ id: DurableJobID, claim: UInt64?) {
        let local = state.withLock { state -> JobID? in
            guard let running = state.running[id], claim.map({ $0 == running.claim }) ?? true else { return nil }
            state.running[id]?.cancelled = true
            return running.local
        }
        if let local { self.local.cancel(local) }
    }
}
