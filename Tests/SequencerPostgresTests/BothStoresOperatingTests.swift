import Foundation
import Sequencer
import SequencerQueue
import Testing

/// What operating a queue reads from its store, as call sequences with explicit times, on
/// SQLite and on PostgreSQL: the gauges' one reader, the counts by kind, lane and state, when
/// each job could run, and the workers' beats.
@Suite struct BothStoresOperatingTests {
    @Test(arguments: StoreKind.testable)
    func oneReaderHoldsTheGaugesUntilItsHoldEndsOrItGivesThemUp(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = steps.store
            #expect(try await store.readGauges(reader: "a", now: 0, holdUntil: 30_000) != nil)
            #expect(try await store.readGauges(reader: "b", now: 10_000, holdUntil: 40_000) == nil, "a holds it")
            #expect(try await store.readGauges(reader: "a", now: 20_000, holdUntil: 50_000) != nil, "a renews its hold")
            #expect(try await store.readGauges(reader: "b", now: 40_000, holdUntil: 70_000) == nil, "renewed until 50,000")
            #expect(try await store.readGauges(reader: "b", now: 50_001, holdUntil: 80_000) != nil, "a's hold ran out")
            try await store.releaseGauges(reader: "a")
            #expect(try await store.readGauges(reader: "a", now: 50_002, holdUntil: 80_000) == nil, "only the holder gives it up")
            try await store.releaseGauges(reader: "b")
            #expect(try await store.readGauges(reader: "a", now: 50_003, holdUntil: 80_000) != nil, "b gave it up: at once")
            // Another process opening the same store sees the same hold.
            let other = try await steps.reopen()
            #expect(try await other.readGauges(reader: "c", now: 60_000, holdUntil: 90_000) == nil)
        }
    }

    @Test(arguments: StoreKind.testable)
    func theGaugesCountLiveJobsByKindLaneAndState(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = steps.store
            try await store.setLane("net", width: 4)
            let first = try await steps.enqueue(Steps.job(at: 100), at: 100)
            _ = try await steps.enqueue(Steps.job(at: 200), at: 200)
            _ = try await steps.enqueue(Steps.job(needs: [first]), at: 300)
            _ = try await steps.enqueue(Steps.job(at: 5_000), at: 300)
            _ = try await steps.enqueue(Steps.job(lane: "net", at: 400), at: 400)
            _ = try await steps.enqueue(Steps.job("other", at: 500), at: 500)
            let done = try await steps.enqueue(Steps.job("other", at: 500), at: 500)
            let claimed = try await steps.claim(kinds: ["k"], limit: 1, at: 1_000)
            #expect(claimed.map(\.id) == [first])
            let finished = try await steps.claim(kinds: ["other"], limit: 2, at: 1_000)
            #expect(try await steps.succeed(try #require(finished.first { $0.id == done }), at: 1_100))

            let gauges = try #require(try await store.readGauges(reader: "r", now: 2_000, holdUntil: 3_000))
            let k = QueueGauges.Group(kind: "k", lane: "")
            let net = QueueGauges.Group(kind: "k", lane: "net")
            let other = QueueGauges.Group(kind: "other", lane: "")
            #expect(gauges.depth == [
                k: [.running: 1, .available: 1, .waiting: 1, .scheduled: 1],
                net: [.available: 1],
                other: [.running: 1],
            ], "ended jobs are not counted; one enqueued for 5,000 is scheduled at 2,000")
            #expect(gauges.oldestAvailableSince == [k: 200, net: 400], "the claimed job (run time 100) is not available")
            #expect(gauges.workersAlive == 0)
        }
    }

    /// The wait in the queue runs from when a job could run: its run time, its last need's end,
    /// its retry time, or when its lease was taken back.
    @Test(arguments: StoreKind.testable)
    func aClaimedJobSaysSinceWhenItCouldRun(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let need = try await steps.enqueue(Steps.job(at: 100), at: 100)
            let dependent = try await steps.enqueue(Steps.job(needs: [need], at: 50), at: 150)
            let first = try await steps.claim(at: 200)
            #expect(first.map(\.id) == [need] && first.first?.availableSince == 100)
            #expect(try await steps.succeed(first[0], at: 700))
            let second = try await steps.claim(at: 900, lease: 1_000)
            #expect(second.map(\.id) == [dependent] && second.first?.availableSince == 700, "its need ended at 700")
            #expect(try await steps.fail(second[0], retryAt: 5_000, at: 950))
            let third = try await steps.claim(at: 6_000, lease: 1_000)
            #expect(third.first?.availableSince == 5_000, "its retry time")
            #expect(try await steps.store.reap(now: 7_001, poisonLimit: 3) == 1)
            let fourth = try await steps.claim(at: 8_000)
            #expect(fourth.first?.availableSince == 7_001, "taken back at 7,001")
        }
    }

    @Test(arguments: StoreKind.testable)
    func workersAliveComeFromTheirBeats(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = steps.store
            try await store.beat(WorkerBeat(owner: "w1", host: "a", pid: 10, startedAt: 0, holding: 0, aliveUntil: 30_000), now: 0)
            try await store.beat(WorkerBeat(owner: "w2", host: "b", pid: 20, startedAt: 5, holding: 3, aliveUntil: 10_000), now: 0)
            #expect(try await store.workers(now: 5_000).map(\.owner) == ["w1", "w2"])
            #expect(try await store.workers(now: 5_000).last?.holding == 3)
            #expect(try await store.workers(now: 20_000).map(\.owner) == ["w1"], "w2 missed its beat")
            #expect(try await store.readGauges(reader: "r", now: 20_000, holdUntil: 21_000)?.workersAlive == 1)
            try await store.beat(WorkerBeat(owner: "w2", host: "b", pid: 20, startedAt: 5, holding: 1, aliveUntil: 50_000), now: 20_000)
            #expect(try await store.workers(now: 20_000).map(\.owner) == ["w1", "w2"], "a late beat brings it back")
            try await store.workerStopped("w1")
            let left = try await store.workers(now: 20_000)
            #expect(left.map(\.owner) == ["w2"] && left.first?.holding == 1 && left.first?.host == "b" && left.first?.pid == 20)
            #expect(try await store.readGauges(reader: "r", now: 20_001, holdUntil: 21_000)?.workersAlive == 1)
        }
    }

    /// What the metrics count as `skipped` and `lease_expired` comes from the store's calls:
    /// the process whose call ended the jobs counts them, once.
    @Test(arguments: StoreKind.testable)
    func aTurnSaysWhatItsEndsSkippedAndATakeBackWhatItTookBack(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = steps.store
            try await store.setLane("net", width: 2)
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job(needs: [a], lane: "net"))
            let c = try await steps.enqueue(Steps.job("other", needs: [b]))
            let held = try await steps.claim()
            #expect(held.map(\.id) == [a])
            let turn = try await store.finishAndClaim(
                [AttemptEnd(id: a, attempt: 1, owner: "w1", outcome: .failed(code: "failed", message: "boom", retryAt: nil))],
                kinds: ["k"], limit: 5, owner: "w1", now: 10, leaseUntil: 1_000)
            #expect(turn.recorded == [true] && turn.claimed.isEmpty)
            #expect(turn.skipped.sorted { $0.id.rawValue < $1.id.rawValue } == [
                StoreEnd(id: b, kind: "k", lane: "net", reason: .skipped),
                StoreEnd(id: c, kind: "other", lane: nil, reason: .skipped),
            ])

            let d = try await steps.enqueue(Steps.job(at: 20), at: 20)
            let e = try await steps.enqueue(Steps.job(needs: [d], at: 20), at: 20)
            let f = try await steps.enqueue(Steps.job("other", at: 20), at: 20)
            #expect(try await steps.claim(kinds: ["k", "other"], at: 30, lease: 1_000).map(\.id) == [d, f])
            #expect(try await store.takeBack(now: 500, poisonLimit: 1).isEmpty, "the leases hold")
            let taken = try await store.takeBack(now: 1_031, poisonLimit: 1)
            #expect(taken.filter { $0.reason == .leaseExpired }.map(\.id).sorted { $0.rawValue < $1.rawValue } == [d, f])
            #expect(taken.filter { $0.reason == .skipped } == [StoreEnd(id: e, kind: "k", lane: nil, reason: .skipped)],
                    "d and f failed as poison at their first crash (limit 1): e, which needs d, is skipped")
        }
    }
}
