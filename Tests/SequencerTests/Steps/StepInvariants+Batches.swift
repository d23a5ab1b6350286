@testable import Sequencer

/// The invariants of batches (see `SchedulerState+Batches.swift`), checked after every step.
extension StepDriver {
    /// Every running job is accounted for exactly once: a worker runs it, a worker holds its end,
    /// it waits in an open batch for its worker to begin it, or it waits for a coalesced leader.
    /// No worker holds an end while another worker could start a job, and the scheduler knows
    /// every slot that holds one.
    func batchProblems() -> [String] {
        var problems: [String] = []
        var holders: [Int32: Int] = [:]
        for worker in workers.values + detached {
            if let job = worker.job { holders[job, default: 0] += 1 }
            for end in worker.ended { holders[end.job, default: 0] += 1 }
        }
        for slot in scheduler.workers.slots where !slot.batch.isEmpty {
            for job in slot.batch[slot.begunInBatch...] { holders[job, default: 0] += 1 }
        }
        for job in scheduler.joiners { holders[job, default: 0] += 1 }
        for job in scheduler.jobs.numbers where scheduler.jobs[job].phase == .running {
            let count = holders[job, default: 0]
            if count != 1 { problems.append("\(scheduler.id(of: job)) is running and held \(count) times") }
        }
        for worker in workers.values where !worker.ended.isEmpty {
            let held = worker.ended.filter { scheduler.jobs[$0.job].phase == .running }
            guard !held.isEmpty else { continue }
            if scheduler.couldStartJob {
                problems.append("worker \(worker.slot) holds the ends of \(held.map { scheduler.id(of: $0.job).description }) while a worker could start a job")
            }
            if !scheduler.mayHoldEnds(slot: worker.slot) {
                problems.append("worker \(worker.slot) holds ends the scheduler does not know of")
            }
        }
        var inBatches = Set<Int32>()
        for slot in scheduler.workers.slots {
            for job in slot.batch where !inBatches.insert(job).inserted {
                problems.append("\(scheduler.id(of: job)) is in two batches")
            }
        }
        return problems
    }
}
