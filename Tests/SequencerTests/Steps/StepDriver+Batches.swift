@testable import Sequencer
import SequencerTestHelpers
import Testing

/// What a worker running a batch does on its own, as ``RunCore`` does it: it goes on with the
/// next job of its batch without reporting, and the run settles the ends it holds whenever a
/// worker could start a job.
extension StepDriver {
    /// The body of `name` succeeds and its worker begins the next job of its batch, holding the
    /// end. Returns false, doing nothing, when the worker would report instead: it has no batch
    /// left, a worker could start a job (the run is not saturated), or its claim failed (the
    /// scheduler closed the batch).
    @discardableResult
    mutating func goOn(_ name: JobID) -> Bool {
        guard let job = number(name), let slot = slot(running: job), var worker = workers[slot],
            worker.position < worker.batch.count, worker.waits.isEmpty, worker.settling == nil,
            !scheduler.couldStartJob, !scheduler.hasUnfinishedChildren(job),
            scheduler.workers[slot].claim.begin(worker.position, generation: worker.generation)
        else { return false }
        let now = tick()
        worker.ended.append((job, Completion(result: .succeeded(()), attempts: 1, startedAt: worker.began, endedAt: now)))
        let next = worker.batch[worker.position]
        worker.position += 1
        worker.job = next
        worker.began = now
        worker.cancelled = false
        workers[slot] = worker
        start(next)
        note("\(name) succeeds; worker \(slot) begins \(scheduler.id(of: next)) of its batch")
        checkInvariants()
        return true
    }

    /// As ``goOn(_:)``, which must happen.
    mutating func mustGoOn(_ name: JobID, sourceLocation: SourceLocation = #_sourceLocation) {
        if !goOn(name) { Issue.record("\(name)'s worker could not go on with its batch", sourceLocation: sourceLocation) }
    }

    /// A worker with a batch goes on with it, if it can.
    mutating func goOnOne(_ random: inout SplitMix64) -> Bool {
        let candidates = active.filter { $0.position < $0.batch.count && $0.waits.isEmpty && !$0.cancelled }
        guard !candidates.isEmpty, let job = random.pick(candidates).job else { return false }
        return goOn(scheduler.id(of: job))
    }

    /// As after each step of a run: when a worker could start a job, the ends workers hold are
    /// settled (``RunCore``'s `settleHeldEnds`).
    mutating func settleHeldEnds() {
        guard scheduler.batchLimit > 1, scheduler.couldStartJob else { return }
        for slot in workers.keys.sorted() {
            guard let worker = workers[slot], !worker.ended.isEmpty, scheduler.mayHoldEnds(slot: slot),
                scheduler.workers[slot].generation == worker.generation
            else { continue }
            workers[slot]?.ended = []
            note("the ends worker \(slot) holds (\(worker.ended.map { scheduler.id(of: $0.job).description })) settle")
            settle(ends: worker.ended)
        }
    }
}
