import Foundation
import Sequencer
import Testing
import SequencerQueue

/// The store's state machine as call sequences with explicit times, on SQLite and on
/// PostgreSQL: the same calls get the same answers.
@Suite struct BothStoresStateTests {
    @Test(arguments: StoreKind.testable)
    func needsReleaseDependentsByCounterAndATurnClaimsThem(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job())
            let c = try await steps.enqueue(Steps.job(needs: [a, b]))
            #expect(try await steps.state(c) == .waiting)
            let first = try await steps.claim()
            #expect(first.map(\.id) == [a, b] && first.allSatisfy { $0.attempt == 1 }, "c waits for a and b")
            #expect(try await steps.succeed(first[0]))
            #expect(try await steps.state(c) == .waiting, "one need of two")
            let turn = try await steps.store.finishAndClaim(
                [AttemptEnd(id: b, attempt: 1, owner: "w1", outcome: .succeeded(Data()))], kinds: ["k"], limit: 5, owner: "w1", now: 1,
                leaseUntil: 30_001)
            #expect(turn.recorded == [true] && turn.claimed.map(\.id) == [c], "released by b's end, claimed in the same turn")
            #expect(try await steps.store.counts() == [.succeeded: 2, .running: 1])
        }
    }

    @Test(arguments: StoreKind.testable)
    func aGraphEnqueuedInOneCallNeedsItsOwnJobsByPosition(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            var b = Steps.job()
            b.needsInBatch = [0]
            var c = Steps.job()
            c.needsInBatch = [0, 1]
            let ids = try await steps.store.enqueue([Steps.job(), b, c], now: 0)
            #expect(try await steps.store.counts() == [.available: 1, .waiting: 2])
            let first = try await steps.claim()
            #expect(first.map(\.id) == [ids[0]])
            #expect(try await steps.succeed(first[0]))
            #expect(try await steps.claim().map(\.id) == [ids[1]], "c still needs b")
            var forward = Steps.job()
            forward.needsInBatch = [1]
            let error = await #expect(throws: QueueError.self) { try await steps.store.enqueue([forward, Steps.job()], now: 0) }
            #expect(error?.code == .unknownNeed)
            #expect(try await steps.store.counts().values.reduce(0, +) == 3, "nothing of the refused batch was added")
        }
    }

    @Test(arguments: StoreKind.testable)
    func aLateEndAfterTheLeaseWasTakenBackIsFencedByAttemptAndOwner(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let held = try await steps.claim("w1", at: 0, lease: 1_000)
            #expect(try await steps.store.reap(now: 500, poisonLimit: 3) == 0, "the lease has not expired")
            #expect(try await steps.store.reap(now: 1_001, poisonLimit: 3) == 1)
            let again = try await steps.claim("w2", at: 1_001)
            #expect(again.map(\.id) == [a] && again.first?.attempt == 2)
            #expect(try await steps.succeed(held[0], owner: "w1", output: "\"late\"", at: 1_500) == false, "attempt 1 of w1")
            #expect(try await steps.succeed(again[0], owner: "w1", at: 1_500) == false, "the right attempt, the wrong owner")
            #expect(try await steps.succeed(again[0], owner: "w2", output: "\"second\"", at: 1_600))
            let job = try #require(try await steps.store.job(a))
            #expect(job.state == .succeeded && job.output == Data("\"second\"".utf8) && job.attempts == 2 && job.crashes == 1)
            #expect(try await steps.succeed(again[0], owner: "w2", at: 1_700) == false, "a success is recorded once")
        }
    }

    @Test(arguments: StoreKind.testable)
    func aKeyIsSharedWhileItsJobLivesAndBadInputIsRefused(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let first = try await steps.enqueue(Steps.job(key: "sync-7"))
            #expect(try await steps.enqueue(Steps.job(key: "sync-7")) == first)
            let claimed = try await steps.claim()
            #expect(try await steps.enqueue(Steps.job(key: "sync-7")) == first, "running: still shared")
            _ = try await steps.succeed(claimed[0])
            #expect(try await steps.enqueue(Steps.job(key: "sync-7")) != first, "after it ended, the key is new work")
            let empty = await #expect(throws: QueueError.self) { try await steps.enqueue(Steps.job(key: "")) }
            #expect(empty?.code == .invalidOption)
            let unknown = await #expect(throws: QueueError.self) { try await steps.enqueue(Steps.job(needs: [DurableJobID(999)])) }
            #expect(unknown?.code == .unknownNeed)
            let lane = await #expect(throws: QueueError.self) { try await steps.enqueue(Steps.job(lane: "disk")) }
            #expect(lane?.code == .unknownLane)
            await #expect(throws: QueueError.self) { try await steps.store.setLane("net", width: 0) }
            #expect(try await steps.store.counts() == [.succeeded: 1, .available: 1], "a refused batch adds nothing")
        }
    }

    @Test(arguments: StoreKind.testable)
    func higherPriorityFirstThenOldestOnlyKnownKindsAndOnlyDueJobs(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let low = try await steps.enqueue(Steps.job(priority: .background))
            let other = try await steps.enqueue(Steps.job("other", priority: .userInteractive))
            let high = try await steps.enqueue(Steps.job(priority: .userInitiated))
            let old = try await steps.enqueue(Steps.job(priority: .userInitiated))
            let later = try await steps.enqueue(Steps.job(priority: .userInteractive, at: 5_000))
            #expect(try await steps.claim(limit: 2).map(\.id) == [high, old], "a batch up to the limit")
            #expect(try await steps.claim(limit: 10).map(\.id) == [low])
            #expect(try await steps.state(other) == .available, "a kind this worker does not know is left for another")
            #expect(try await steps.store.nextRunTime(kinds: ["k"], after: 0) == 5_000)
            #expect(try await steps.claim(at: 5_000).map(\.id) == [later])
        }
    }

    @Test(arguments: StoreKind.testable)
    func aLaneOfWidthTwoRunsTwoAtOnceAcrossOwnersRetriesIncluded(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            try await steps.store.setLane("net", width: 2)
            let retry = StoredRetry(maxAttempts: 3, initialMilliseconds: 1_000, multiplier: 1, maximumMilliseconds: 1_000, jitter: 0)
            let a = try await steps.enqueue(Steps.job(lane: "net", retry: retry))
            let b = try await steps.enqueue(Steps.job(lane: "net"))
            let c = try await steps.enqueue(Steps.job(lane: "net"))
            let free = try await steps.enqueue(Steps.job())
            #expect(try await steps.claim("w1", limit: 1).map(\.id) == [a])
            #expect(try await steps.claim("w2", limit: 5).map(\.id) == [b, free], "c waits: a and b hold the lane's two slots")
            #expect(try await steps.fail(try #require(try await steps.claimedAgain(a)), retryAt: 1_000, at: 10))
            #expect(try await steps.claim("w3", at: 500).isEmpty, "a's retry keeps its slot")
            #expect(try await steps.claim("w3", at: 1_000).map(\.id) == [a], "a takes its own slot back")
            let second = try await steps.store.job(b)
            #expect(second?.state == .running)
            try await steps.store.setLane("net", width: 3)
            #expect(try await steps.claim("w3", at: 1_000).map(\.id) == [c], "a wider lane has room")
        }
    }

    @Test(arguments: StoreKind.testable)
    func aWidthOneLaneKeepsItsOrderThroughARetryAndAReap(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            try await steps.store.setLane("serial", width: 1)
            let retry = StoredRetry(maxAttempts: 3, initialMilliseconds: 1_000, multiplier: 1, maximumMilliseconds: 1_000, jitter: 0)
            let a = try await steps.enqueue(Steps.job(lane: "serial", retry: retry))
            let b = try await steps.enqueue(Steps.job(lane: "serial"))
            let first = try await steps.claim(at: 0)
            #expect(first.map(\.id) == [a])
            #expect(try await steps.fail(first[0], retryAt: 1_000, at: 10))
            #expect(try await steps.claim(at: 500).isEmpty, "b waits behind a's retry")
            let second = try await steps.claim(at: 1_000)
            #expect(second.map(\.id) == [a] && second.first?.attempt == 2, "a takes its own slot back")
            #expect(try await steps.succeed(try #require(second.first), at: 1_100))
            #expect(try await steps.claim(at: 1_100).map(\.id) == [b])
            let c = try await steps.enqueue(Steps.job(lane: "serial"))
            #expect(try await steps.claim("w2", at: 1_200).isEmpty, "b runs")
            #expect(try await steps.store.reap(now: 40_000, poisonLimit: 3) == 1)
            #expect(try await steps.claim("w3", at: 40_000).map(\.id) == [b], "b, taken back from its dead worker, runs again before c")
            #expect(try await steps.state(c) == .available)
        }
    }

    @Test(arguments: StoreKind.testable)
    func aHeartbeatRenewsLeasesAndNamesCancelledOrLostJobs(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job())
            let c = try await steps.enqueue(Steps.job(needs: [b]))
            _ = try await steps.claim("w1", limit: 1, at: 0, lease: 100)
            #expect(try await steps.store.heartbeat(owner: "w1", jobs: [a], leaseUntil: 1_000, now: 90) == [])
            #expect(try await steps.store.reap(now: 500, poisonLimit: 3) == 0, "renewed until 1,000")
            #expect(try await steps.store.cancel(b, now: 600) == .cancelled)
            #expect(try await steps.state(c) == .skipped, "a cancelled need skips its dependents")
            #expect(try await steps.store.cancel(a, now: 600) == .running)
            #expect(try await steps.store.heartbeat(owner: "w1", jobs: [a], leaseUntil: 2_000, now: 700) == [a], "stop a: cancelled")
            #expect(try await steps.end(try #require(try await steps.claimedAgain(a)), .cancelled, at: 800))
            #expect(try await steps.state(a) == .cancelled)
            #expect(try await steps.store.cancel(DurableJobID(4_242), now: 900) == nil)
            let d = try await steps.enqueue(Steps.job())
            _ = try await steps.claim("w2", at: 1_000, lease: 100)
            #expect(try await steps.store.reap(now: 1_101, poisonLimit: 3) == 1)
            #expect(try await steps.store.heartbeat(owner: "w2", jobs: [d], leaseUntil: 3_000, now: 1_102) == [d], "no longer its own")
            // Only the jobs named are renewed: one whose claim the worker never heard of (the
            // answer was lost) keeps its lease, which runs out.
            let known = try await steps.enqueue(Steps.job())
            let unheard = try await steps.enqueue(Steps.job())
            #expect(Set(try await steps.claim("w3", limit: 3, at: 2_000, lease: 100).map(\.id)) == [d, known, unheard])
            #expect(try await steps.store.heartbeat(owner: "w3", jobs: [d, known], leaseUntil: 5_000, now: 2_050) == [])
            #expect(try await steps.store.reap(now: 2_101, poisonLimit: 3) == 1)
            #expect(try await steps.state(unheard) == .available)
            #expect(try await steps.state(known) == .running)
        }
    }

    /// A worker's jobs claimed ahead of its free slots had not started when it died: no crash
    /// is counted for them, and they are claimed only into a slot from then on, so that a job
    /// that kills its worker as it starts is still counted.
    @Test(arguments: StoreKind.testable)
    func aJobClaimedAheadIsNotCountedWhenItsWorkerDiesAndIsNeverClaimedAheadAgain(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job())
            let c = try await steps.enqueue(Steps.job())
            // One free slot: a starts, b and c wait ahead; the worker dies.
            #expect(try await steps.claim("w1", limit: 3, slots: 1, at: 0, lease: 100).map(\.id) == [a, b, c])
            #expect(try await steps.store.reap(now: 101, poisonLimit: 2) == 3)
            #expect(try await steps.store.job(a)?.crashes == 1)
            for id in [b, c] {
                let job = try #require(try await steps.store.job(id))
                #expect(job.state == .available && job.crashes == 0)
                #expect(job.error?.contains("waited there for a slot") == true, "\(job.error ?? "-")")
            }
            // b and c are not claimed ahead again: a takes the slot, and dies with its worker.
            #expect(try await steps.claim("w2", limit: 3, slots: 1, at: 200, lease: 100).map(\.id) == [a])
            #expect(try await steps.store.reap(now: 301, poisonLimit: 2) == 1)
            #expect(try await steps.state(a) == .failed, "two crashes of its own: poison")
            #expect(try await steps.claim("w3", limit: 3, slots: 1, at: 400).map(\.id) == [b])
            #expect(try await steps.claim("w3", limit: 3, slots: 3, at: 400).map(\.id) == [c])
        }
    }

    @Test(arguments: StoreKind.testable)
    func aJobWhoseWorkersKeepDyingFailsAsPoisonAndSkipsItsDependentsTransitively(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job(needs: [a]))
            let c = try await steps.enqueue(Steps.job(needs: [b]))
            var now: Int64 = 0
            for round in 1...3 {
                #expect(try await steps.claim("w\(round)", at: now, lease: 100).map(\.id) == [a])
                now += 101
                #expect(try await steps.store.reap(now: now, poisonLimit: 3) == 1)
            }
            let job = try #require(try await steps.store.job(a))
            #expect(job.state == .failed && job.errorCode == "crashed" && job.crashes == 3)
            #expect(job.error?.contains("3 times (the last: w3, attempt 3)") == true)
            let skipped = try #require(try await steps.store.job(c))
            #expect(try await steps.state(b) == .skipped)
            #expect(skipped.state == .skipped && skipped.cause == b && skipped.endedAt == now)
            #expect(try await steps.state(try await steps.enqueue(Steps.job(needs: [c]))) == .skipped, "a need that ended badly skips at once")
        }
    }

    @Test(arguments: StoreKind.testable)
    func aRetrysTimeAndAttemptAreKeptInTheStoreAndAReleaseIsNotCounted(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let retry = StoredRetry(maxAttempts: 3, initialMilliseconds: 1_000, multiplier: 2, maximumMilliseconds: 10_000, jitter: 0.5)
            let a = try await steps.enqueue(Steps.job(retry: retry))
            let first = try await steps.claim(at: 0)
            #expect(first.first?.retry == retry)
            #expect(try await steps.fail(first[0], retryAt: 1_000, at: 10))
            #expect(try await steps.claim(at: 999).isEmpty)
            // Another process (a relaunch) sees the same time.
            let reopened = try await steps.reopen()
            #expect(try await reopened.nextRunTime(kinds: ["k"], after: 10) == 1_000)
            let second = try await reopened.claim(kinds: ["k"], limit: 1, owner: "w9", now: 1_000, leaseUntil: 31_000)
            #expect(second.map(\.id) == [a] && second.first?.attempt == 2)
            #expect(try await steps.store.job(a)?.error == "boom")
            #expect(try await steps.end(second[0], owner: "w9", .released, at: 1_100))
            #expect(try await steps.claim("w3", at: 1_200).first?.attempt == 2, "the released attempt is not counted")
        }
    }

    @Test(arguments: StoreKind.testable)
    func pruningDropsOldEndedJobsOnlyAndAnIDIsNeverGivenTwice(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job())
            let c = try await steps.enqueue(Steps.job())
            let claimed = try await steps.claim(limit: 2)
            _ = try await steps.succeed(claimed[0], at: 100)
            _ = try await steps.fail(claimed[1], at: 100)
            #expect(try await steps.store.prune(endedBefore: 100, includingFailures: true) == 0)
            #expect(try await steps.store.prune(endedBefore: 101, includingFailures: false) == 1)
            #expect(try await steps.store.job(a) == nil)
            #expect(try await steps.state(b) == .failed)
            #expect(try await steps.store.prune(endedBefore: 101, includingFailures: true) == 1)
            #expect(try await steps.store.counts() == [.available: 1])
            #expect(try await steps.store.jobs(in: [.available, .failed], after: nil, limit: 10).map(\.id) == [c])
            #expect(try await steps.enqueue(Steps.job()).rawValue > c.rawValue)
        }
    }

    @Test(arguments: StoreKind.testable)
    func aSchemaFromANewerSequencerIsRefusedAndLeftUntouched(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            try await steps.markNewer()
            let refused = await #expect(throws: QueueError.self) { _ = try await steps.reopen() }
            #expect(refused?.code == .newerVersion)
            #expect(refused?.message.contains("version 99") == true && refused?.message.contains("left untouched") == true)
            #expect(try await steps.state(a) == .available, "its jobs are still there")
        }
    }
}

extension Steps {
    /// The running attempt of `id`, as its worker holds it.
    func claimedAgain(_ id: DurableJobID) async throws -> ClaimedJob? {
        guard let job = try await store.job(id), job.state == .running else { return nil }
        return ClaimedJob(id: id, kind: job.kind, input: Data(), attempt: job.attempts, priority: job.priority, lane: job.lane, timeout: nil, retry: .none)
    }
}
