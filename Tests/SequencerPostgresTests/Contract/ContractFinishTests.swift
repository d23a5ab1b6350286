import Foundation
import Sequencer
import SequencerQueue
import Testing

/// `QueueStore.finish(_:now:)` on both stores: each outcome of an attempt, its fence, and what
/// it does to the job's dependents.
@Suite(.serialized) struct ContractFinishTests {
    @Test(arguments: StoreKind.testable)
    func aSuccessKeepsItsOutputAndItsEndTimeAndFreesTheJobsOwner(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            #expect(try await steps.succeed(try await steps.claimOne(at: 10), output: "{\"n\":42}", at: 75))
            let job = try await steps.stored(a)
            #expect(job.state == .succeeded && job.endedAt == 75 && job.startedAt == 10 && job.owner == nil)
            #expect(job.output == Data("{\"n\":42}".utf8) && job.attempts == 1 && job.errorCode == nil && job.error == nil)
        }
    }

    /// A failure for good keeps its code and message and skips every dependent, each naming
    /// the need that did not succeed.
    @Test(arguments: StoreKind.testable)
    func aFailureForGoodKeepsItsCodeAndMessageAndSkipsEveryDependent(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job(needs: [a]))
            let c = try await steps.enqueue(Steps.job(needs: [b]))
            #expect(try await steps.end(try await steps.claimOne(), .failed(code: "exit", message: "exit 3", retryAt: nil), at: 40))
            let failed = try await steps.stored(a)
            #expect(failed.state == .failed && failed.errorCode == "exit" && failed.error == "exit 3" && failed.endedAt == 40)
            #expect(failed.owner == nil && failed.output == nil)
            for (dependent, cause) in [(b, a), (c, b)] {
                let job = try await steps.stored(dependent)
                #expect(job.state == .skipped && job.cause == cause && job.endedAt == 40 && job.attempts == 0)
                #expect(job.errorCode == "needFailed" && job.error == "job #\(cause.rawValue), which it needs, did not succeed")
            }
        }
    }

    /// A failure with a retry time makes the job available from then, with the failure's code
    /// and message kept and its attempt counted; its dependents keep waiting.
    @Test(arguments: StoreKind.testable)
    func aFailureWithARetryTimeMakesTheJobAvailableFromThen(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job(retry: Contract.threeAttempts))
            let b = try await steps.enqueue(Steps.job(needs: [a]))
            #expect(try await steps.end(try await steps.claimOne(), Contract.failure("exit", "exit 1", retryAt: 2_000), at: 1_000))
            let job = try await steps.stored(a)
            #expect(job.state == .available && job.runAt == 2_000 && job.endedAt == nil && job.owner == nil)
            #expect(job.errorCode == "exit" && job.error == "exit 1" && job.attempts == 1)
            #expect(try await steps.state(b) == .waiting)
            #expect(try await steps.store.nextRunTime(kinds: ["k"], after: 1_000) == 2_000)
        }
    }

    /// A cancelled attempt ends its job as cancelled and skips its dependents.
    @Test(arguments: StoreKind.testable)
    func aCancelledAttemptEndsItsJobAndSkipsItsDependents(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job(needs: [a]))
            #expect(try await steps.end(try await steps.claimOne(), .cancelled, at: 30))
            let job = try await steps.stored(a)
            #expect(job.state == .cancelled && job.endedAt == 30 && job.owner == nil)
            let skipped = try await steps.stored(b)
            #expect(skipped.state == .skipped && skipped.cause == a && skipped.endedAt == 30)
        }
    }

    /// A released attempt (its worker stopped cleanly) makes the job available at once, and is
    /// not counted.
    @Test(arguments: StoreKind.testable)
    func aReleasedAttemptMakesItsJobAvailableAtOnceUncounted(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job(at: 0))
            #expect(try await steps.end(try await steps.claimOne(at: 100), .released, at: 500))
            let job = try await steps.stored(a)
            #expect(job.state == .available && job.attempts == 0 && job.runAt == 500 && job.owner == nil && job.crashes == 0)
            #expect(try await steps.claim(at: 500).map(\.attempt) == [1])
        }
    }

    /// Every outcome is fenced by attempt and owner: an end from another owner or of another
    /// attempt is refused and leaves the job running.
    @Test(arguments: StoreKind.testable)
    func everyOutcomeIsFencedByAttemptAndOwner(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let held = try await steps.claimOne()
            let outcomes: [AttemptEnd.Outcome] = [.succeeded(Data()), Contract.failure(), Contract.failure(retryAt: 9), .cancelled, .released]
            for outcome in outcomes {
                let ends = [
                    AttemptEnd(id: a, attempt: 1, owner: "w2", outcome: outcome),
                    AttemptEnd(id: a, attempt: 2, owner: "w1", outcome: outcome),
                    AttemptEnd(id: a, attempt: 0, owner: "w1", outcome: outcome),
                ]
                #expect(try await steps.store.finish(ends, now: 10) == [false, false, false], "\(outcome)")
            }
            let job = try await steps.stored(a)
            #expect(job.state == .running && job.owner == "w1" && job.attempts == 1 && job.errorCode == nil)
            #expect(try await steps.end(held, .released, at: 20))
        }
    }

    /// An end of a job that is not running (waiting, available, ended, or no job at all) is
    /// not recorded.
    @Test(arguments: StoreKind.testable)
    func anEndOfAJobThatIsNotRunningIsNotRecorded(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let done = try await steps.enqueue(Steps.job())
            #expect(try await steps.succeed(try await steps.claimOne(), output: "\"kept\"", at: 5))
            let available = try await steps.enqueue(Steps.job())
            let waiting = try await steps.enqueue(Steps.job(needs: [available]))
            let ends = [done, available, waiting, DurableJobID(9_999)].map {
                AttemptEnd(id: $0, attempt: 1, owner: "w1", outcome: .failed(code: "late", message: "late", retryAt: nil))
            }
            #expect(try await steps.store.finish(ends, now: 10) == [false, false, false, false])
            #expect(try await steps.store.counts() == [.succeeded: 1, .available: 1, .waiting: 1])
            #expect(try await steps.stored(done).output == Data("\"kept\"".utf8))
        }
    }

    @Test(arguments: StoreKind.testable)
    func anEmptyBatchOfEndsRecordsNothing(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            _ = try await steps.enqueue(Steps.job())
            #expect(try await steps.store.finish([], now: 0).isEmpty)
            #expect(try await steps.store.counts() == [.available: 1])
        }
    }

    /// A batch of ends of every kind, recorded or not, is answered in its order.
    @Test(arguments: StoreKind.testable)
    func aBatchOfEndsIsAnsweredInItsOrder(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue((0..<5).map { _ in Steps.job(retry: Contract.threeAttempts) }, now: 0)
            let held = try await steps.claim()
            try #require(held.map(\.id) == ids)
            let ends = [
                Steps.ending(held[0], Contract.failure(retryAt: 100)),
                Steps.ending(held[1], owner: "w2", .succeeded(Data("no".utf8))),
                Steps.ending(held[2], .succeeded(Data("yes".utf8))),
                Steps.ending(held[3], .released),
                AttemptEnd(id: ids[4], attempt: 7, owner: "w1", outcome: .succeeded(Data())),
                Steps.ending(held[4], .succeeded(Data("last".utf8))),
            ]
            #expect(try await steps.store.finish(ends, now: 10) == [true, false, true, true, false, true])
            let states = try await ids.asyncMap { try await steps.state($0) }
            #expect(states == [.available, .running, .succeeded, .available, .succeeded])
            #expect(try await steps.stored(ids[4]).output == Data("last".utf8))
        }
    }

    /// A worker that lost a job's lease and claimed it again may end both attempts in one
    /// batch: only the attempt that holds the job is recorded, and the answers say which.
    @Test(arguments: StoreKind.testable)
    func aLateAndACurrentSuccessOfOneJobInOneBatchAreToldApart(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let late = try await steps.claimOne(at: 0, lease: 100)
            #expect(try await steps.store.reap(now: 101, poisonLimit: 3) == 1)
            let current = try await steps.claimOne(at: 101)
            let ends = [Steps.ending(late, .succeeded(Data("late".utf8))), Steps.ending(current, .succeeded(Data("current".utf8)))]
            #expect(try await steps.store.finish(ends, now: 200) == [false, true])
            #expect(try await steps.stored(a).output == Data("current".utf8))
        }
    }

    /// Two needs that end in one batch release their shared dependent.
    @Test(arguments: StoreKind.testable)
    func twoNeedsEndingInOneBatchReleaseTheirSharedDependent(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(), Steps.job(), Contract.after(0, 1), Contract.after(1)], now: 0)
            let held = try await steps.claim()
            #expect(held.map(\.id) == [ids[0], ids[1]])
            #expect(try await steps.store.finish(held.map { Steps.ending($0, .succeeded(Data())) }, now: 10) == [true, true])
            #expect(try await steps.claim(at: 10).map(\.id) == [ids[2], ids[3]])
        }
    }

    /// A dependent of three needs waits until the last of them succeeded.
    @Test(arguments: StoreKind.testable)
    func aDependentOfThreeNeedsWaitsForTheLast(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(), Steps.job(), Steps.job(), Contract.after(0, 1, 2)], now: 0)
            let held = try await steps.claim()
            for (index, job) in held.reversed().enumerated() {
                #expect(try await steps.state(ids[3]) == .waiting, "\(index) of 3 ended")
                #expect(try await steps.succeed(job, at: Int64(index)))
            }
            #expect(try await steps.state(ids[3]) == .available)
        }
    }

    /// When the root of a diamond fails, each job below it is skipped once.
    @Test(arguments: StoreKind.testable)
    func aDiamondBelowAFailureIsSkippedWhole(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(), Contract.after(0), Contract.after(0), Contract.after(1, 2)], now: 0)
            #expect(try await steps.fail(try await steps.claimOne(), at: 9))
            #expect(try await steps.store.counts() == [.failed: 1, .skipped: 3])
            let bottom = try await steps.stored(ids[3])
            #expect(bottom.cause == ids[1] || bottom.cause == ids[2])
            #expect(bottom.endedAt == 9)
        }
    }

    /// A dependent skipped because one need failed stays skipped when its other need succeeds.
    @Test(arguments: StoreKind.testable)
    func aSkippedDependentStaysSkippedWhenItsOtherNeedSucceeds(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(), Steps.job(), Contract.after(0, 1)], now: 0)
            let held = try await steps.claim()
            #expect(try await steps.fail(held[0], at: 10))
            #expect(try await steps.succeed(held[1], at: 20))
            let job = try await steps.stored(ids[2])
            #expect(job.state == .skipped && job.cause == ids[0] && job.endedAt == 10)
            #expect(try await steps.claim(at: 30).isEmpty)
        }
    }
}
