import Foundation
import Sequencer
import SequencerQueue
import Testing

/// `QueueStore.enqueue(_:now:)` and `setLane(_:width:)` on both stores: what a new job is, how
/// its needs and its key are read, and the batches refused whole.
@Suite(.serialized) struct ContractEnqueueTests {
    /// A new job is stored as given, enqueued at `now`, to run from its run time, with no
    /// attempt yet; the IDs of a batch grow in its order.
    @Test(arguments: StoreKind.testable)
    func aNewJobIsStoredAsGivenWithItsTimesAndNoAttemptYet(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            try await steps.store.setLane("net", width: 1)
            let ids = try await steps.store.enqueue(
                [Steps.job("a", key: "one", lane: "net", priority: .userInitiated, at: 700), Steps.job("b")], now: 500)
            #expect(ids.count == 2 && ids[0] < ids[1])
            let job = try await steps.stored(ids[0])
            #expect(job.id == ids[0] && job.kind == "a" && job.key == "one" && job.lane == "net" && job.priority == .userInitiated)
            #expect(job.state == .available && job.enqueuedAt == 500 && job.runAt == 700)
            #expect(job.attempts == 0 && job.crashes == 0 && job.startedAt == nil && job.endedAt == nil && job.owner == nil)
            #expect(job.errorCode == nil && job.error == nil && job.cause == nil && job.output == nil)
            let second = try await steps.stored(ids[1])
            #expect(second.kind == "b" && second.key == nil && second.lane == nil && second.priority == .utility && second.runAt == 0)
        }
    }

    @Test(arguments: StoreKind.testable)
    func anEmptyBatchAddsNothing(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([], now: 0)
            #expect(ids.isEmpty)
            #expect(try await steps.store.counts().isEmpty)
        }
    }

    /// A claim hands the worker what was enqueued: the input's bytes, the timeout, the retry
    /// policy's numbers, the lane and the priority.
    @Test(arguments: StoreKind.testable)
    func aClaimGetsWhatWasEnqueuedByteForByte(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            try await steps.store.setLane("disk", width: 4)
            let retry = StoredRetry(maxAttempts: 5, initialMilliseconds: 250, multiplier: 1.5, maximumMilliseconds: 9_000, jitter: 0.25)
            let input = Data([0, 1, 2, 0xFF, 0xFE, 0x00, 0x7F])
            let job = NewDurableJob(
                kind: "copy", input: input, priority: .userInteractive, lane: "disk", timeout: .milliseconds(1_500), retry: retry, runAt: 0)
            let id = try await steps.enqueue(job)
            let claimed = try await steps.claim(kinds: ["copy"])
            #expect(claimed == [ClaimedJob(
                id: id, kind: "copy", input: input, attempt: 1, priority: .userInteractive, lane: "disk", timeout: .milliseconds(1_500),
                retry: retry, availableSince: 0)])
            let plain = try await steps.enqueue(Steps.job())
            #expect(try await steps.claim().map { [$0.id == plain, $0.timeout == nil, $0.retry == .none, $0.lane == nil] } == [[true, true, true, true]])
        }
    }

    @Test(arguments: StoreKind.testable)
    func aNeedThatSucceededAlreadyLeavesTheNewJobAvailable(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            #expect(try await steps.succeed(try await steps.claimOne(), at: 10))
            let b = try await steps.enqueue(Steps.job(needs: [a]), at: 20)
            #expect(try await steps.state(b) == .available)
            #expect(try await steps.claim(at: 20).map(\.id) == [b])
        }
    }

    /// A job whose needs include one that failed, was cancelled or was skipped is skipped as it
    /// is enqueued, with the lowest such need as its cause, even when other needs still live.
    @Test(arguments: StoreKind.testable)
    func aNeedThatEndedBadlySkipsTheNewJobAtOnceWithTheFirstSuchNeedAsItsCause(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let failed = try await steps.enqueue(Steps.job())
            #expect(try await steps.fail(try await steps.claimOne(), at: 5))
            let cancelled = try await steps.enqueue(Steps.job())
            #expect(try await steps.store.cancel(cancelled, now: 6) == .cancelled)
            let skipped = try await steps.enqueue(Steps.job(needs: [failed]), at: 7)
            let live = try await steps.enqueue(Steps.job())
            for (needs, cause) in [([skipped, cancelled, live], cancelled), ([live, skipped], skipped), ([skipped, failed, cancelled], failed)] {
                let id = try await steps.enqueue(Steps.job(needs: needs), at: 50)
                let job = try await steps.stored(id)
                #expect(job.state == .skipped && job.cause == cause && job.endedAt == 50 && job.errorCode == "needFailed")
                #expect(job.error == "job #\(cause.rawValue), which it needs, did not succeed")
            }
            #expect(try await steps.claim(at: 60).map(\.id) == [live], "no skipped job is ever claimed")
        }
    }

    @Test(arguments: StoreKind.testable)
    func aNeedNamedTwiceIsCountedOnce(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job(needs: [a, a]))
            let ids = try await steps.store.enqueue([Steps.job(), Contract.after(0, 0)], now: 0)
            #expect(try await steps.state(b) == .waiting)
            #expect(try await steps.state(ids[1]) == .waiting)
            let claimed = try await steps.claim()
            #expect(Set(claimed.map(\.id)) == [a, ids[0]])
            for job in claimed { #expect(try await steps.succeed(job, at: 10)) }
            #expect(try await steps.state(b) == .available, "one success of its one need")
            #expect(try await steps.state(ids[1]) == .available)
        }
    }

    /// A job's needs by ID and by position in its batch are one set: it waits for all of them.
    @Test(arguments: StoreKind.testable)
    func needsByIDAndByPositionInTheBatchAreWaitedForTogether(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let outside = try await steps.enqueue(Steps.job("outside"))
            let ids = try await steps.store.enqueue([Steps.job(), Contract.after(0, job: Steps.job(needs: [outside]))], now: 0)
            #expect(try await steps.succeed(try await steps.claimOne(), at: 10))
            #expect(try await steps.state(ids[1]) == .waiting, "its need outside the batch still runs")
            let other = try #require(try await steps.claim(kinds: ["outside"], at: 20).first)
            #expect(try await steps.succeed(other, at: 30))
            #expect(try await steps.claim(at: 30).map(\.id) == [ids[1]])
        }
    }

    /// A position that is not before the job (itself, a later one, a negative one) is refused
    /// as an unknown need, with or without keys in the batch, and nothing of it is added.
    @Test(arguments: StoreKind.testable)
    func aPositionNotBeforeTheJobIsAnUnknownNeedAndNothingIsAdded(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            _ = try await steps.enqueue(Steps.job())
            for position in [-1, 1, 2] {
                for key in [nil, "key-\(position)"] {
                    let batch = [Steps.job(key: key), Contract.after(position), Steps.job()]
                    let error = await #expect(throws: QueueError.self) { try await steps.store.enqueue(batch, now: 0) }
                    #expect(error?.code == .unknownNeed, "position \(position), key \(key ?? "none")")
                    #expect(try await steps.total() == 1)
                }
            }
            _ = try await steps.enqueue(Steps.job(key: "key-1"))
            #expect(try await steps.total() == 2, "the refused batches kept no key")
        }
    }

    /// A batch with an undeclared lane or an unknown need at its end is refused whole: the jobs
    /// before the bad one are not added, and their keys stay free.
    @Test(arguments: StoreKind.testable)
    func aBatchWithABadJobAtItsEndIsRefusedWhole(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let existing = try await steps.enqueue(Steps.job())
            for keyed in [false, true] {
                let first = Steps.job(key: keyed ? "first" : nil)
                let lane = await #expect(throws: QueueError.self) {
                    try await steps.store.enqueue([first, Contract.after(0), Steps.job(lane: "nowhere")], now: 0)
                }
                #expect(lane?.code == .unknownLane)
                let need = await #expect(throws: QueueError.self) {
                    try await steps.store.enqueue([first, Contract.after(0), Steps.job(needs: [DurableJobID(existing.rawValue + 1_000)])], now: 0)
                }
                #expect(need?.code == .unknownNeed)
                #expect(try await steps.store.counts() == [.available: 1], keyed ? "with keys" : "without keys")
            }
            let fresh = try await steps.enqueue(Steps.job(key: "first"))
            #expect(fresh != existing)
            #expect(try await steps.stored(fresh).key == "first")
        }
    }

    @Test(arguments: StoreKind.testable)
    func aKeyGivenTwiceInOneBatchIsOneJob(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(key: "k1"), Steps.job(key: "k1"), Contract.after(1, job: Steps.job(key: "k2"))], now: 0)
            #expect(ids.count == 3 && ids[0] == ids[1] && ids[2] != ids[0])
            #expect(try await steps.store.counts() == [.available: 1, .waiting: 1])
            #expect(try await steps.succeed(try await steps.claimOne(), at: 1))
            #expect(try await steps.state(ids[2]) == .available)
        }
    }

    /// Enqueueing a key that a waiting or running job has returns that job, as it is: the new
    /// job's kind, priority and needs are not taken.
    @Test(arguments: StoreKind.testable)
    func aLiveKeyReturnsItsJobUnchanged(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let need = try await steps.enqueue(Steps.job("need"))
            let waiting = try await steps.enqueue(Steps.job(key: "w", needs: [need], priority: .background))
            #expect(try await steps.enqueue(Steps.job("other", key: "w", priority: .userInteractive)) == waiting)
            let job = try await steps.stored(waiting)
            #expect(job.kind == "k" && job.priority == .background && job.state == .waiting)
            let running = try await steps.enqueue(Steps.job(key: "r"))
            _ = try await steps.claimOne()
            #expect(try await steps.enqueue(Steps.job(key: "r", needs: [need])) == running)
            #expect(try await steps.store.counts() == [.available: 1, .waiting: 1, .running: 1])
        }
    }

    @Test(arguments: StoreKind.testable)
    func aKeyOfAJobThatFailedWasCancelledOrSkippedIsNewWork(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let failed = try await steps.enqueue(Steps.job(key: "f"))
            let cancelled = try await steps.enqueue(Steps.job(key: "c"))
            let skipped = try await steps.enqueue(Steps.job(key: "s", needs: [failed]))
            #expect(try await steps.fail(try await steps.claimOne(), at: 1))
            #expect(try await steps.store.cancel(cancelled, now: 2) == .cancelled)
            #expect(try await steps.state(skipped) == .skipped)
            for (key, old) in [("f", failed), ("c", cancelled), ("s", skipped)] {
                let again = try await steps.enqueue(Steps.job(key: key), at: 3)
                #expect(again != old, "\(key)")
                #expect(try await steps.state(again) == .available, "\(key)")
            }
        }
    }

    /// A lane's width must be at least 1: a refused declaration declares nothing.
    @Test(arguments: StoreKind.testable)
    func aLaneWidthBelowOneIsRefusedAndDeclaresNothing(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            for width in [0, -3] {
                let error = await #expect(throws: QueueError.self) { try await steps.store.setLane("gpu", width: width) }
                #expect(error?.code == .invalidOption && error?.message.contains("gpu") == true)
            }
            let undeclared = await #expect(throws: QueueError.self) { try await steps.enqueue(Steps.job(lane: "gpu")) }
            #expect(undeclared?.code == .unknownLane)
            try await steps.store.setLane("gpu", width: 1)
            try await steps.store.setLane("gpu", width: 1)
            #expect(try await steps.state(try await steps.enqueue(Steps.job(lane: "gpu"))) == .available)
        }
    }
}
