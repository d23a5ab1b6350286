import Foundation
import Sequencer
import SequencerQueue
import Testing

/// `QueueStore.cancel(_:now:)` on both stores: a pending job ends at once, a running one is
/// marked for its worker, an ended one is left as it is.
@Suite(.serialized) struct ContractCancelTests {
    @Test(arguments: StoreKind.testable)
    func cancellingAnAvailableJobEndsItAtOnce(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            #expect(try await steps.store.cancel(a, now: 40) == .cancelled)
            let job = try await steps.stored(a)
            #expect(job.state == .cancelled && job.endedAt == 40 && job.attempts == 0)
            #expect(try await steps.claim(at: 50).isEmpty)
        }
    }

    /// A waiting job cancelled ends at once, and every job below it is skipped; its own need
    /// ending later changes nothing.
    @Test(arguments: StoreKind.testable)
    func cancellingAWaitingJobSkipsEveryJobBelowIt(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(), Contract.after(0), Contract.after(1), Contract.after(2)], now: 0)
            let need = try await steps.claimOne()
            #expect(try await steps.store.cancel(ids[1], now: 20) == .cancelled)
            for (id, cause) in [(ids[2], ids[1]), (ids[3], ids[2])] {
                let job = try await steps.stored(id)
                #expect(job.state == .skipped && job.cause == cause && job.endedAt == 20)
            }
            #expect(try await steps.succeed(need, at: 30))
            #expect(try await steps.store.counts() == [.succeeded: 1, .cancelled: 1, .skipped: 2])
        }
    }

    /// A running job is only marked: it runs on, its lease is renewed, its dependents wait,
    /// and each heartbeat of its owner names it, until its worker ends it.
    @Test(arguments: StoreKind.testable)
    func cancellingARunningJobMarksItForItsWorkerAlone(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let other = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job(needs: [a]))
            let held = try await steps.claim(at: 0, lease: 100)
            #expect(try await steps.store.cancel(a, now: 10) == .running)
            let job = try await steps.stored(a)
            #expect(job.state == .running && job.owner == "w1" && job.endedAt == nil)
            #expect(try await steps.state(b) == .waiting)
            for now in [Int64(50), 150] {
                let stop = try await steps.store.heartbeat(owner: "w1", jobs: [a, other], leaseUntil: now + 100, now: now)
                #expect(stop == [a], "at \(now)")
            }
            #expect(try await steps.store.reap(now: 200, poisonLimit: 1) == 0, "the marked job's lease was renewed")
            #expect(try await steps.end(held[0], .cancelled, at: 210))
            #expect(try await steps.state(a) == .cancelled)
            #expect(try await steps.stored(b).cause == a)
            #expect(try await steps.store.heartbeat(owner: "w1", jobs: [other], leaseUntil: 500, now: 220).isEmpty)
        }
    }

    /// An ended job is not changed by a cancel, which answers its state.
    @Test(arguments: StoreKind.testable)
    func cancellingAnEndedJobAnswersItsStateAndChangesNothing(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(), Steps.job(), Contract.after(1), Steps.job()], now: 0)
            let held = try await steps.claim(limit: 2)
            #expect(try await steps.succeed(held[0], output: "\"ok\"", at: 10))
            #expect(try await steps.fail(held[1], at: 10))
            #expect(try await steps.store.cancel(ids[3], now: 10) == .cancelled)
            let before = try await ids.asyncMap { try await steps.stored($0) }
            let answers = try await ids.asyncMap { try await steps.store.cancel($0, now: 99) }
            #expect(answers == [.succeeded, .failed, .skipped, .cancelled])
            #expect(try await ids.asyncMap { try await steps.stored($0) } == before)
        }
    }

    /// A cancelled need skips a job that is enqueued after it.
    @Test(arguments: StoreKind.testable)
    func aCancelledNeedSkipsAJobEnqueuedAfterIt(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            _ = try await steps.store.cancel(a, now: 5)
            let b = try await steps.enqueue(Steps.job(needs: [a]), at: 6)
            let job = try await steps.stored(b)
            #expect(job.state == .skipped && job.cause == a && job.endedAt == 6)
        }
    }

    /// A cancel asked of a running job is not lost when its worker dies before it stops it:
    /// the worker that runs the job next is told to stop it at its first heartbeat.
    @Test(arguments: StoreKind.testable)
    func aCancelOfARunningJobOutlivesItsWorker(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne("w1", at: 0, lease: 100)
            #expect(try await steps.store.cancel(a, now: 10) == .running)
            #expect(try await steps.store.reap(now: 101, poisonLimit: 3) == 1)
            let again = try await steps.claimOne("w2", at: 200)
            #expect(again.id == a)
            #expect(try await steps.store.heartbeat(owner: "w2", jobs: [a], leaseUntil: 40_000, now: 210) == [a])
        }
    }

    /// A cancel asked of a running job is not lost when the attempt ends in a retry: the next
    /// attempt is told to stop at its first heartbeat.
    @Test(arguments: StoreKind.testable)
    func aCancelOfARunningJobOutlivesARetry(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job(retry: Contract.threeAttempts))
            let first = try await steps.claimOne(at: 0)
            #expect(try await steps.store.cancel(a, now: 10) == .running)
            #expect(try await steps.fail(first, retryAt: 100, at: 20))
            let again = try await steps.claimOne("w2", at: 100)
            #expect(again.id == a && again.attempt == 2)
            #expect(try await steps.store.heartbeat(owner: "w2", jobs: [a], leaseUntil: 40_000, now: 110) == [a])
        }
    }
}
