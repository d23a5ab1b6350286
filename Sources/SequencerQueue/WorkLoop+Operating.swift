import Foundation
import Sequencer

/// What a worker tells those who operate the queue: its beat in the store (the workers alive),
/// and the gauges, when this process holds their reading.
extension WorkLoop {
    /// This worker's beat, to record: alive until a lease from `now`.
    func workerBeat(now: Int64) -> WorkerBeat {
        WorkerBeat(
            owner: owner, host: ProcessInfo.processInfo.hostName, pid: ProcessInfo.processInfo.processIdentifier,
            startedAt: startedAt, holding: state.withLock { $0.running.count },
            aliveUntil: now + QueueClock.milliseconds(options.lease), kinds: queue.kinds.withLock { Array($0.keys) })
    }

    /// Records this worker's beat; a store that fails is not this worker's trouble here (its
    /// leases' heartbeat hears of it).
    func recordBeat() async {
        let now = clock.now()
        let beat = workerBeat(now: now)
        _ = try? await bounded("recording the worker's beat", within: options.lease / 2) { try await $0.beat(beat, now: now) }
    }

    /// Reads the gauges every ``DurableQueue/Options/gaugeInterval`` while this process holds
    /// their reading, and shows them; shows none while another process holds it, or the store
    /// cannot be read (no value rather than a stale one). Nothing when no metrics are reported.
    func readGauges() async {
        let metrics = queue.metrics
        guard metrics.reported else { return }
        let interval = QueueClock.milliseconds(options.gaugeInterval)
        let reader = queue.gaugeReader
        while !Task.isCancelled {
            let now = clock.now()
            do {
                let reading = try await bounded("reading the gauges", within: options.gaugeInterval) {
                    try await $0.readGauges(reader: reader, now: now, holdUntil: now + 3 * interval)
                }
                if let reading { metrics.show(reading, now: now) } else { metrics.hideGauges() }
            } catch {
                metrics.hideGauges()
            }
            do { try await clock.sleep(until: now + interval) } catch { return }
        }
    }

    /// Work stopped: the worker's beat goes, and so does its hold on the gauges' reading, so
    /// that another process reads them at once.
    func stopped() async {
        let owner = owner
        _ = try? await bounded("removing the worker's beat", within: options.lease / 2) { try await $0.workerStopped(owner) }
        guard queue.metrics.reported, queue.workers.withLock({ $0.count }) <= 1 else { return }
        let reader = queue.gaugeReader
        _ = try? await bounded("giving up the gauges", within: options.lease / 2) { try await $0.releaseGauges(reader: reader) }
        queue.metrics.hideGauges()
    }
}
