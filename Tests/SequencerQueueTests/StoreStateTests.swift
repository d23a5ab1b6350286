import Foundation
import Sequencer
import Testing
@testable import SequencerQueue

/// The store's state machine, step by step with explicit times: claims, ends, fencing, needs,
/// keys, retries, lanes, leases and cancellation.
@Suite struct StoreStateTests {
    @Test func aDependentBecomesAvailableOnlyWhenItsNeedSucceeded() async throws {
        let steps = try StoreSteps()
        let a = try await steps.enqueue(StoreSteps.job())
        let b = try await steps.enqueue(StoreSteps.job(needs: [a]))
        #expect(try await steps.state(b) == .waiting)
        let first = try await steps.claim()
        #expect(first.map(\.id) == [a], "b waits for a")
        #expect(first[0].attempt == 1)
        #expect(try await steps.succeed(first[0]))
        #expect(try await steps.state(b) == .available)
        #expect(try await steps.claim().map(\.id) == [b])
    }

    @Test func aTurnRecordsEndsThenClaimsWhatTheyReleasedInOneTransaction() async throws {
        let steps = try StoreSteps()
        let a = try await steps.enqueue(StoreSteps.job())
        let b = try await steps.enqueue(StoreSteps.job(needs: [a]))
        let first = try await steps.claim()
        let turn = try await steps.store.finishAndClaim(
            [AttemptEnd(id: a, attempt: first[0].attempt, owner: "w1", outcome: .succeeded(Data()))],
            kinds: ["k"], limit: 5, owner: "w1", now: 1, leaseUntil: 30_001)
        #expect(turn.recorded == [true])
        #expect(turn.claimed.map(\.id) == [b], "b, released by a's end, is claimed in the same turn")
        let fenced = try await steps.store.finishAndClaim(
            [AttemptEnd(id: a, attempt: 1, owner: "w1", outcome: .succeeded(Data()))], kinds: [], limit: 0, owner: "w1", now: 2, leaseUntil: 0)
        #expect(fenced.recorded == [false] && fenced.claimed.isEmpty)
    }

    @Test func aLateEndOfAnAttemptThatLostItsLeaseIsRefused() async throws {
        let steps = try StoreSteps()
        let a = try await steps.enqueue(StoreSteps.job())
        let held = try await steps.claim("w1", at: 0, lease: 1_000)
        #expect(try await steps.store.reap(now: 500, poisonLimit: 3) == 0, "the lease has not expired")
        #expect(try await steps.store.reap(now: 1_001, poisonLimit: 3) == 1)
        let again = try await steps.claim("w2", at: 1_001)
        #expect(again.map(\.id) == [a] && again[0].attempt == 2)
        #expect(try await steps.succeed(held[0], owner: "w1", output: "\"late\"", at: 1_500) == false, "fenced: attempt 1 of w1")
        #expect(try await steps.succeed(again[0], owner: "w2", output: "\"second\"", at: 1_600))
        let job = try #require(try await steps.store.job(a))
        #expect(job.state == .succeeded && job.output == Data("\"second\"".utf8) && job.attempts == 2 && job.crashes == 1)
        #expect(try await steps.succeed(again[0], owner: "w2", at: 1_700) == false, "a success is recorded once")
    }

    @Test func aKeyIsSharedWhileItsJobLivesAndFreeAfter() async throws {
        let steps = try StoreSteps()
        let first = try await steps.enqueue(StoreSteps.job(key: "sync-7"))
        #expect(try await steps.enqueue(StoreSteps.job(key: "sync-7")) == first)
        let claimed = try await steps.claim()
        #expect(try await steps.enqueue(StoreSteps.job(key: "sync-7")) == first, "running: still shared")
        _ = try await steps.succeed(claimed[0])
        let second = try await steps.enqueue(StoreSteps.job(key: "sync-7"))
        #expect(second != first, "after it ended, the key is new work")
        await #expect(throws: QueueError.self) { try await steps.enqueue(StoreSteps.job(key: "")) }
    }

    @Test func aFailedNeedSkipsItsDependentsTransitivelyAndLaterOnesAtOnce() async throws {
        let steps = try StoreSteps()
        let a = try await steps.enqueue(StoreSteps.job())
        let b = try await steps.enqueue(StoreSteps.job(needs: [a]))
        let c = try await steps.enqueue(StoreSteps.job(needs: [b]))
        let claimed = try await steps.claim()
        #expect(try await steps.fail(claimed[0], retryAt: nil, at: 5))
        #expect(try await steps.state(a) == .failed)
        let skippedC = try #require(try await steps.store.job(c))
        #expect(try await steps.state(b) == .skipped)
        #expect(skippedC.state == .skipped && skippedC.cause == b && skippedC.endedAt == 5)
        let d = try await steps.enqueue(StoreSteps.job(needs: [c]))
        #expect(try await steps.state(d) == .skipped, "a need that already ended badly skips at once")
        let unknown = await #expect(throws: QueueError.self) { try await steps.enqueue(StoreSteps.job(needs: [DurableJobID(999)])) }
        #expect(unknown?.code == .unknownNeed)
    }

    @Test func aRetryWaitsForItsTimeWhichIsKeptInTheStore() async throws {
        let steps = try StoreSteps()
        let a = try await steps.enqueue(StoreSteps.job(retry: StoredRetry(maxAttempts: 3, initialMilliseconds: 1_000, multiplier: 2, maximumMilliseconds: 10_000, jitter: 0)))
        let first = try await steps.claim(at: 0)
        #expect(first[0].retry.maxAttempts == 3)
        #expect(try await steps.fail(first[0], retryAt: 1_000, at: 10))
        #expect(try await steps.claim(at: 999).isEmpty)
        #expect(try await steps.store.nextRunTime(kinds: ["k"], after: 10) == 1_000)
        // A new store on the same file (a relaunch) sees the same time.
        let reopened = try SQLiteQueueStore(path: steps.path)
        #expect(try await reopened.nextRunTime(kinds: ["k"], after: 10) == 1_000)
        let second = try await reopened.claim(kinds: ["k"], limit: 1, owner: "w9", now: 1_000, leaseUntil: 31_000)
        #expect(second.map(\.id) == [a] && second[0].attempt == 2)
        #expect(try await steps.store.job(a)?.error == "boom")
    }

    @Test func aLaneHoldsAcrossOwners() async throws {
        let steps = try StoreSteps()
        try await steps.store.setLane("net", width: 1)
        let a = try await steps.enqueue(StoreSteps.job(lane: "net"))
        let b = try await steps.enqueue(StoreSteps.job(lane: "net"))
        let c = try await steps.enqueue(StoreSteps.job())
        let w1 = try await steps.claim("w1", limit: 1)
        #expect(w1.map(\.id) == [a])
        let w2 = try await steps.claim("w2", limit: 5)
        #expect(w2.map(\.id) == [c], "b's lane is full, held by w1")
        _ = try await steps.succeed(w1[0])
        #expect(try await steps.claim("w2").map(\.id) == [b])
        let undeclared = await #expect(throws: QueueError.self) { try await steps.enqueue(StoreSteps.job(lane: "disk")) }
        #expect(undeclared?.code == .unknownLane)
        await #expect(throws: QueueError.self) { try await steps.store.setLane("net", width: 0) }
    }

    @Test func aJobWaitingForItsRetryKeepsItsLaneSlotSoAWidthOneLaneKeepsOrder() async throws {
        let steps = try StoreSteps()
        try await steps.store.setLane("serial", width: 1)
        let retry = StoredRetry(maxAttempts: 3, initialMilliseconds: 1_000, multiplier: 1, maximumMilliseconds: 1_000, jitter: 0)
        let a = try await steps.enqueue(StoreSteps.job(lane: "serial", retry: retry))
        let b = try await steps.enqueue(StoreSteps.job(lane: "serial"))
        let first = try await steps.claim(at: 0)
        #expect(first.map(\.id) == [a])
        #expect(try await steps.fail(first[0], retryAt: 1_000, at: 10))
        #expect(try await steps.claim(at: 500).isEmpty, "b waits behind a's retry")
        let second = try await steps.claim(at: 1_000)
        #expect(second.map(\.id) == [a] && second[0].attempt == 2, "a takes its own slot back")
        #expect(try await steps.succeed(second[0], at: 1_100))
        #expect(try await steps.claim(at: 1_100).map(\.id) == [b])
        // A job taken back from a dead worker keeps its place too.
        let c = try await steps.enqueue(StoreSteps.job(lane: "serial"))
        #expect(try await steps.claim("w2", at: 1_200).isEmpty, "b runs")
        #expect(try await steps.store.reap(now: 40_000, poisonLimit: 3) == 1)
        #expect(try await steps.claim("w3", at: 40_000).map(\.id) == [b], "b again, before c")
        _ = c
    }

    @Test func higherPriorityFirstThenOldestAndOnlyKnownKinds() async throws {
        let steps = try StoreSteps()
        let low = try await steps.enqueue(StoreSteps.job(priority: .background))
        let other = try await steps.enqueue(StoreSteps.job("other", priority: .userInteractive))
        let high = try await steps.enqueue(StoreSteps.job(priority: .userInitiated))
        let old = try await steps.enqueue(StoreSteps.job(priority: .userInitiated))
        #expect(try await steps.claim(limit: 10).map(\.id) == [high, old, low])
        #expect(try await steps.state(other) == .available, "a kind this worker does not know is left for another")
    }

    @Test func aJobWhoseWorkerKeepsDyingIsFailedAsPoison() async throws {
        let steps = try StoreSteps()
        let a = try await steps.enqueue(StoreSteps.job())
        let b = try await steps.enqueue(StoreSteps.job(needs: [a]))
        var now: Int64 = 0
        for round in 1...3 {
            let claimed = try await steps.claim("w\(round)", at: now, lease: 100)
            #expect(claimed.map(\.id) == [a])
            now += 101
            #expect(try await steps.store.reap(now: now, poisonLimit: 3) == 1)
        }
        let job = try #require(try await steps.store.job(a))
        #expect(job.state == .failed && job.errorCode == "crashed" && job.crashes == 3)
        #expect(try await steps.state(b) == .skipped)
    }

    @Test func cancellingStopsPendingJobsAtOnceAndMarksRunningOnes() async throws {
        let steps = try StoreSteps()
        let a = try await steps.enqueue(StoreSteps.job())
        let b = try await steps.enqueue(StoreSteps.job())
        let c = try await steps.enqueue(StoreSteps.job(needs: [b]))
        let running = try await steps.claim(limit: 1)
        #expect(running.map(\.id) == [a])
        #expect(try await steps.store.cancel(b, now: 1) == .cancelled)
        #expect(try await steps.state(c) == .skipped)
        #expect(try await steps.store.cancel(a, now: 1) == .running)
        #expect(try await steps.store.heartbeat(owner: "w1", jobs: [a], leaseUntil: 50_000, now: 2) == [a], "the worker is told to stop a")
        #expect(try await steps.store.finish([AttemptEnd(id: a, attempt: 1, owner: "w1", outcome: .cancelled)], now: 3) == [true])
        #expect(try await steps.state(a) == .cancelled)
        #expect(try await steps.store.cancel(DurableJobID(42), now: 4) == nil)
    }

    @Test func aHeartbeatRenewsLeasesAndNamesJobsNoLongerHeld() async throws {
        let steps = try StoreSteps()
        let a = try await steps.enqueue(StoreSteps.job())
        let b = try await steps.enqueue(StoreSteps.job())
        _ = try await steps.claim("w1", at: 0, lease: 100)
        #expect(try await steps.store.heartbeat(owner: "w1", jobs: [a, b], leaseUntil: 1_000, now: 90) == [])
        #expect(try await steps.store.reap(now: 500, poisonLimit: 3) == 0, "renewed until 1,000")
        #expect(try await steps.store.reap(now: 1_001, poisonLimit: 3) == 2)
        #expect(try await steps.store.heartbeat(owner: "w1", jobs: [a, b], leaseUntil: 2_000, now: 1_002) == [a, b])
    }

    @Test func aReleasedAttemptIsNotCounted() async throws {
        let steps = try StoreSteps()
        let a = try await steps.enqueue(StoreSteps.job())
        let claimed = try await steps.claim()
        #expect(try await steps.store.finish([AttemptEnd(id: a, attempt: 1, owner: "w1", outcome: .released)], now: 1) == [true])
        let again = try await steps.claim("w2", at: 2)
        #expect(again.first?.attempt == 1 && claimed.first?.attempt == 1)
    }

    @Test func pruningDropsOldEndedJobsOnly() async throws {
        let steps = try StoreSteps()
        let a = try await steps.enqueue(StoreSteps.job())
        let b = try await steps.enqueue(StoreSteps.job())
        let c = try await steps.enqueue(StoreSteps.job())
        let claimed = try await steps.claim(limit: 2)
        _ = try await steps.succeed(claimed[0], at: 100)
        _ = try await steps.fail(claimed[1], at: 100)
        #expect(try await steps.store.prune(endedBefore: 100, includingFailures: true) == 0)
        #expect(try await steps.store.prune(endedBefore: 101, includingFailures: false) == 1)
        #expect(try await steps.store.job(a) == nil)
        #expect(try await steps.state(b) == .failed)
        #expect(try await steps.store.prune(endedBefore: 101, includingFailures: true) == 1)
        #expect(try await steps.state(c) == .available)
        let later = try await steps.enqueue(StoreSteps.job())
        #expect(later.rawValue > c.rawValue, "an ID is never given twice")
    }
}
