@testable import Sequencer
import SequencerTestHelpers
import SequencerTestSupport

/// What workers do on their own, as the sweeps draw it (`StepSweepTests`, `QueueSweepTests`).
/// Each returns whether it could happen now.
extension StepDriver {
    /// Workers whose bodies run and may do something: not blocked on their waits, not settling.
    var active: [Worker] {
        workers.values.filter { $0.job != nil && !$0.blocked && $0.settling == nil }.sorted { $0.slot < $1.slot }
    }

    /// A body that waits for nothing returns: cancelled mostly when its task was, failed one time
    /// in five, else succeeded.
    mutating func finishOne(_ random: inout SplitMix64) -> Bool {
        let candidates = active.filter(\.waits.isEmpty)
        guard !candidates.isEmpty else { return false }
        let worker = random.pick(candidates)
        guard let job = worker.job else { return false }
        let outcome: Outcome = worker.cancelled && random.chance(percent: 70) ? .cancelled : random.chance(percent: 20) ? .failed : .succeeded
        finish(scheduler.id(of: job), outcome)
        return true
    }

    /// A worker told to park asks for a job again.
    mutating func parkOne(_ random: inout SplitMix64) -> Bool {
        let parking = workers.values.filter { $0.state == .parking }
        guard !parking.isEmpty else { return false }
        park(slot: random.pick(parking).slot)
        return true
    }

    /// A new worker's task is registered.
    mutating func registerOne(_ random: inout SplitMix64) -> Bool {
        let new = workers.values.filter { !$0.registered }
        guard !new.isEmpty else { return false }
        register(slot: random.pick(new).slot)
        return true
    }
}
