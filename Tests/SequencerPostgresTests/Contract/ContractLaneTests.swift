import Foundation
import Sequencer
import SequencerQueue
import Testing

/// Lanes' widths in claims, and a worker's turn (`finishAndClaim`), on both stores.
@Suite(.serialized) struct ContractLaneTests {
    /// One claim takes no more of a lane's jobs than its width, however large its limit.
    @Test(arguments: StoreKind.testable)
    func oneClaimTakesNoMoreOfALaneThanItsWidth(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            try await steps.store.setLane("net", width: 2)
            let ids = try await steps.store.enqueue((0..<5).map { _ in Steps.job(lane: "net") }, now: 0)
            #expect(try await steps.claim(limit: 10).map(\.id) == Array(ids[0..<2]))
            #expect(try await steps.claim("w2", limit: 10).isEmpty)
        }
    }

    /// A full lane holds back its own jobs only: lower-priority jobs, and jobs of other lanes,
    /// are claimed past it.
    @Test(arguments: StoreKind.testable)
    func aFullLaneIsPassedByForOtherLanesAndLowerPriorities(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            try await steps.store.setLane("net", width: 1)
            try await steps.store.setLane("disk", width: 1)
            let net1 = try await steps.enqueue(Steps.job(lane: "net", priority: .userInteractive))
            let net2 = try await steps.enqueue(Steps.job(lane: "net", priority: .userInteractive))
            let disk = try await steps.enqueue(Steps.job(lane: "disk", priority: .utility))
            let free = try await steps.enqueue(Steps.job(priority: .background))
            #expect(try await steps.claim(limit: 10).map(\.id) == [net1, disk, free])
            #expect(try await steps.state(net2) == .available)
        }
    }

    /// A claim looks past a full lane's jobs however many there are: a job far behind them is
    /// found.
    @Test(arguments: StoreKind.testable)
    func aFullLaneDoesNotHideAJobFarBehindItsJobs(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            try await steps.store.setLane("serial", width: 1)
            let laned = try await steps.store.enqueue((0..<70).map { _ in Steps.job(lane: "serial", priority: .userInitiated) }, now: 0)
            let free = try await steps.enqueue(Steps.job(priority: .background))
            #expect(try await steps.claim(limit: 2).map(\.id) == [laned[0], free])
            #expect(try await steps.claim("w2", limit: 2).isEmpty)
        }
    }

    /// Every way a lane's job ends gives its slot to the next: a success, a failure for good, a
    /// cancel, and a release (its job, available again, takes it first).
    @Test(arguments: StoreKind.testable)
    func everyEndOfALanesJobGivesItsSlotToTheNext(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            try await steps.store.setLane("serial", width: 1)
            let ids = try await steps.store.enqueue((0..<5).map { _ in Steps.job(lane: "serial") }, now: 0)
            var now: Int64 = 0
            func next() async throws -> ClaimedJob {
                now += 10
                let claimed = try await steps.claim(at: now)
                try #require(claimed.count == 1)
                #expect(try await steps.claim("w2", at: now).isEmpty, "the lane is full")
                return claimed[0]
            }
            let a = try await next()
            #expect(a.id == ids[0])
            #expect(try await steps.succeed(a, at: now))
            let b = try await next()
            #expect(b.id == ids[1])
            #expect(try await steps.fail(b, at: now))
            let c = try await next()
            #expect(try await steps.store.cancel(c.id, now: now) == .running)
            #expect(c.id == ids[2])
            #expect(try await steps.end(c, .cancelled, at: now))
            let d = try await next()
            #expect(d.id == ids[3])
            #expect(try await steps.end(d, .released, at: now))
            let again = try await next()
            #expect(again.id == ids[3] && again.attempt == 1, "released: its attempt did not count")
            #expect(try await steps.succeed(again, at: now))
            #expect(try await next().id == ids[4])
        }
    }

    /// A lane's width holds across owners, and narrowing it holds back new claims until the
    /// running jobs fit.
    @Test(arguments: StoreKind.testable)
    func aNarrowedLaneWaitsUntilItsRunningJobsFit(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            try await steps.store.setLane("net", width: 3)
            let ids = try await steps.store.enqueue((0..<5).map { _ in Steps.job(lane: "net") }, now: 0)
            let running = try await steps.claim("w1", limit: 2) + steps.claim("w2", limit: 2)
            #expect(running.map(\.id) == Array(ids[0..<3]))
            try await steps.store.setLane("net", width: 1)
            #expect(try await steps.succeed(running[0], at: 10))
            #expect(try await steps.claim("w3", at: 10).isEmpty, "two run in a lane of one")
            #expect(try await steps.succeed(running[1], owner: "w1", at: 20))
            #expect(try await steps.succeed(running[2], owner: "w2", at: 20))
            #expect(try await steps.claim("w3", at: 30).map(\.id) == [ids[3]])
        }
    }

    /// A turn records its ends first: a slot that an end frees is claimed in the same turn.
    @Test(arguments: StoreKind.testable)
    func aTurnRecordsItsEndsBeforeItClaims(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            try await steps.store.setLane("serial", width: 1)
            let a = try await steps.enqueue(Steps.job(lane: "serial"))
            let b = try await steps.enqueue(Steps.job(lane: "serial"))
            let first = try await steps.claimOne()
            let turn = try await steps.store.finishAndClaim(
                [Steps.ending(first, .succeeded(Data("1".utf8)))], kinds: ["k"], limit: 1, owner: "w1", now: 10, leaseUntil: 1_000)
            #expect(first.id == a && turn.recorded == [true] && turn.claimed.map(\.id) == [b])
            #expect(try await steps.stored(a).output == Data("1".utf8))
        }
    }

    /// A turn's fenced ends are answered false and change nothing; its claim goes on.
    @Test(arguments: StoreKind.testable)
    func aTurnAnswersItsFencedEndsAndStillClaims(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let held = try await steps.claimOne()
            let b = try await steps.enqueue(Steps.job())
            let ends = [Steps.ending(held, owner: "w2", .succeeded(Data())), AttemptEnd(id: a, attempt: 2, owner: "w1", outcome: .released)]
            let turn = try await steps.store.finishAndClaim(ends, kinds: ["k"], limit: 5, owner: "w2", now: 10, leaseUntil: 1_000)
            #expect(turn.recorded == [false, false] && turn.claimed.map(\.id) == [b])
            let job = try await steps.stored(a)
            #expect(job.state == .running && job.owner == "w1" && job.attempts == 1)
        }
    }

    /// A turn with no room only records its ends; one with no ends only claims.
    @Test(arguments: StoreKind.testable)
    func aTurnMayOnlyRecordOrOnlyClaim(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job())
            let held = try await steps.claimOne()
            let ending = try await steps.store.finishAndClaim([Steps.ending(held, Contract.failure())], kinds: ["k"], limit: 0, owner: "w1", now: 5, leaseUntil: 100)
            #expect(ending.recorded == [true] && ending.claimed.isEmpty)
            #expect(try await steps.state(a) == .failed)
            #expect(try await steps.state(b) == .available)
            let claiming = try await steps.store.finishAndClaim([], kinds: ["k"], limit: 5, owner: "w1", now: 6, leaseUntil: 100)
            #expect(claiming.recorded.isEmpty && claiming.claimed.map(\.id) == [b])
            let nothing = try await steps.store.finishAndClaim([], kinds: [], limit: 5, owner: "w1", now: 7, leaseUntil: 100)
            #expect(nothing.recorded.isEmpty && nothing.claimed.isEmpty)
        }
    }

    /// A turn claims ahead beyond its free slots, as a claim does: the jobs waiting ahead cost
    /// no crash when the worker dies.
    @Test(arguments: StoreKind.testable)
    func aTurnClaimsAheadBeyondItsSlots(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(), Steps.job(), Steps.job()], now: 0)
            let turn = try await steps.store.finishAndClaim([], kinds: ["k"], limit: 3, slots: 1, owner: "w1", now: 0, leaseUntil: 100)
            #expect(turn.claimed.map(\.id) == ids)
            #expect(try await steps.store.reap(now: 101, poisonLimit: 1) == 3)
            #expect(try await steps.state(ids[0]) == .failed, "it started in the slot")
            #expect(try await steps.stored(ids[1]).crashes == 0)
            #expect(try await steps.stored(ids[2]).crashes == 0)
        }
    }
}
