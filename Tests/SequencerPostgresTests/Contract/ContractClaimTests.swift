import Foundation
import Sequencer
import SequencerQueue
import Testing

/// `QueueStore.claim(kinds:limit:slots:owner:now:leaseUntil:)` on both stores: which jobs a
/// claim takes, in which order, and what it makes of them.
@Suite(.serialized) struct ContractClaimTests {
    @Test(arguments: StoreKind.testable)
    func aClaimWithNoKindsOrNoRoomClaimsNothing(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            #expect(try await steps.claim(kinds: []).isEmpty)
            #expect(try await steps.claim(limit: 0).isEmpty)
            #expect(try await steps.claim(kinds: ["unknown"]).isEmpty)
            let job = try await steps.stored(a)
            #expect(job.state == .available && job.attempts == 0 && job.owner == nil)
        }
    }

    /// A claimed job runs under its owner from the claim's time, as its first attempt.
    @Test(arguments: StoreKind.testable)
    func aClaimedJobRunsUnderItsOwnerFromTheClaimsTime(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job(), at: 100)
            let claimed = try await steps.claim("w7", at: 250, lease: 1_000)
            #expect(claimed.map(\.id) == [a] && claimed.first?.attempt == 1)
            let job = try await steps.stored(a)
            #expect(job.state == .running && job.owner == "w7" && job.startedAt == 250 && job.attempts == 1)
            #expect(job.enqueuedAt == 100 && job.endedAt == nil)
            #expect(try await steps.claim("w8", at: 300).isEmpty, "a running job is not claimed again")
        }
    }

    /// A job's run time is the first moment it may be claimed.
    @Test(arguments: StoreKind.testable)
    func aJobIsClaimedFromItsRunTimeOnAndNotBefore(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job(at: 1_000))
            #expect(try await steps.claim(at: 999).isEmpty)
            #expect(try await steps.state(a) == .available)
            #expect(try await steps.claim(at: 1_000).map(\.id) == [a])
        }
    }

    @Test(arguments: StoreKind.testable)
    func aWaitingJobIsNeverClaimedWhateverItsPriority(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let need = try await steps.enqueue(Steps.job("need"))
            let waiting = try await steps.enqueue(Steps.job(needs: [need], priority: .userInteractive))
            let low = try await steps.enqueue(Steps.job(priority: .background))
            #expect(try await steps.claim(limit: 10, at: 5_000).map(\.id) == [low])
            #expect(try await steps.state(waiting) == .waiting)
        }
    }

    /// The four priorities come highest first, whatever the order they were enqueued in.
    @Test(arguments: StoreKind.testable)
    func everyPriorityComesBeforeTheLowerOnes(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            var ids: [Priority: DurableJobID] = [:]
            for priority in [Priority.utility, .background, .userInteractive, .userInitiated] {
                ids[priority] = try await steps.enqueue(Steps.job(priority: priority))
            }
            var order: [DurableJobID] = []
            for _ in 0..<4 { order += try await steps.claim(limit: 1).map(\.id) }
            #expect(order == [.userInteractive, .userInitiated, .utility, .background].compactMap { ids[$0] })
            #expect(try await steps.claim().isEmpty)
        }
    }

    /// Among jobs of one priority, the one enqueued first comes first, even when a later one's
    /// run time came sooner.
    @Test(arguments: StoreKind.testable)
    func amongEqualPrioritiesTheOldestComesFirstWhateverItsRunTime(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let old = try await steps.enqueue(Steps.job(at: 100), at: 0)
            let young = try await steps.enqueue(Steps.job(at: 0), at: 10)
            #expect(try await steps.claim(limit: 1, at: 200).map(\.id) == [old])
            #expect(try await steps.claim(limit: 1, at: 200).map(\.id) == [young])
        }
    }

    /// A claim takes jobs of every kind it names, in one order, and leaves the others.
    @Test(arguments: StoreKind.testable)
    func aClaimTakesEveryKindItNamesAndLeavesTheOthers(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job("a"))
            let c = try await steps.enqueue(Steps.job("c"))
            let b = try await steps.enqueue(Steps.job("b", priority: .userInitiated))
            let claimed = try await steps.claim(kinds: ["a", "b"])
            #expect(claimed.map(\.id) == [b, a] && claimed.map(\.kind) == ["b", "a"])
            #expect(try await steps.state(c) == .available)
        }
    }

    /// Each claim of a job is its next attempt: after a retry, and after its worker died.
    @Test(arguments: StoreKind.testable)
    func eachClaimOfAJobIsItsNextAttempt(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job(retry: Contract.threeAttempts))
            let first = try await steps.claimOne(at: 0, lease: 100)
            #expect(try await steps.fail(first, retryAt: 50, at: 10))
            let second = try await steps.claimOne(at: 50, lease: 100)
            #expect(second.id == a && second.attempt == 2)
            #expect(try await steps.store.reap(now: 151, poisonLimit: 5) == 1)
            let third = try await steps.claimOne("w2", at: 151)
            #expect(third.attempt == 3)
            #expect(try await steps.stored(a).attempts == 3)
        }
    }

    /// A claim with more room than there are jobs takes them all, and one with less takes as
    /// many as its limit.
    @Test(arguments: StoreKind.testable)
    func aClaimTakesUpToItsLimit(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue((0..<40).map { _ in Steps.job() }, now: 0)
            #expect(try await steps.claim(limit: 3).map(\.id) == Array(ids[0..<3]))
            #expect(try await steps.claim("w2", limit: 100).map(\.id) == Array(ids[3...]))
            #expect(try await steps.store.counts() == [.running: 40])
        }
    }

    /// The jobs beyond the claim's free slots are claimed ahead: none is counted as a crash when
    /// its worker dies, even with a poison limit of one, and none of them is claimed ahead
    /// again; one that was is claimed into a slot.
    @Test(arguments: StoreKind.testable)
    func jobsClaimedAheadAreNeverPoisonAndAreClaimedOnlyIntoASlotAfter(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(), Steps.job(), Steps.job()], now: 0)
            #expect(try await steps.claim(limit: 3, slots: 0, at: 0, lease: 100).map(\.id) == ids)
            #expect(try await steps.store.reap(now: 101, poisonLimit: 1) == 3)
            for id in ids {
                let job = try await steps.stored(id)
                #expect(job.state == .available && job.crashes == 0 && job.errorCode == "crashed")
            }
            #expect(try await steps.claim("w2", limit: 3, slots: 0, at: 200).isEmpty, "none is claimed ahead again")
            #expect(try await steps.claim("w2", limit: 3, slots: 1, at: 200, lease: 100).map(\.id) == [ids[0]])
            #expect(try await steps.store.reap(now: 301, poisonLimit: 1) == 1)
            #expect(try await steps.state(ids[0]) == .failed, "in a slot, its worker's death is its own")
        }
    }

    /// A job that never lost a claim ahead may still wait ahead behind one that did, which
    /// takes the slot.
    @Test(arguments: StoreKind.testable)
    func aJobLostAheadTakesTheSlotAndAFreshOneMayWaitAheadBehindIt(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let lost = try await steps.enqueue(Steps.job())
            #expect(try await steps.claim(limit: 1, slots: 0, at: 0, lease: 100).map(\.id) == [lost])
            #expect(try await steps.store.reap(now: 101, poisonLimit: 3) == 1)
            let fresh = try await steps.enqueue(Steps.job(), at: 101)
            #expect(try await steps.claim("w2", limit: 2, slots: 1, at: 200, lease: 100).map(\.id) == [lost, fresh])
            #expect(try await steps.store.reap(now: 301, poisonLimit: 3) == 2)
            #expect(try await steps.stored(lost).crashes == 1)
            #expect(try await steps.stored(fresh).crashes == 0, "it waited ahead")
        }
    }

    /// A job lost from a claim ahead is passed by when the claim's slots are full: it is not
    /// among the jobs claimed ahead.
    @Test(arguments: StoreKind.testable)
    func aJobLostAheadIsPassedByOnceTheSlotsAreFull(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let first = try await steps.enqueue(Steps.job(priority: .userInitiated))
            let lost = try await steps.enqueue(Steps.job())
            #expect(try await steps.claim(limit: 2, slots: 1, at: 0, lease: 100).map(\.id) == [first, lost])
            #expect(try await steps.store.reap(now: 101, poisonLimit: 3) == 2)
            let claimed = try await steps.claim("w2", limit: 2, slots: 1, at: 200)
            #expect(claimed.map(\.id) == [first], "the slot goes to the higher priority; the lost job may not wait ahead")
            #expect(try await steps.state(lost) == .available)
        }
    }

    /// A job lost from a claim ahead, passed by, does not keep the claim from filling its
    /// limit with a job behind it that may wait ahead.
    @Test(arguments: StoreKind.testable)
    func aJobLostAheadAndPassedByLeavesItsPlaceToTheNext(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let first = try await steps.enqueue(Steps.job(priority: .userInitiated))
            let lost = try await steps.enqueue(Steps.job())
            #expect(try await steps.claim(limit: 2, slots: 1, at: 0, lease: 100).map(\.id) == [first, lost])
            #expect(try await steps.store.reap(now: 101, poisonLimit: 3) == 2)
            let next = try await steps.enqueue(Steps.job(), at: 101)
            let claimed = try await steps.claim("w2", limit: 2, slots: 1, at: 200).map(\.id)
            #expect(claimed.first == first && !claimed.contains(lost))
            // PostgreSQL's one-statement claim reads only `limit` candidates: the lost job passed
            // by takes a place, and `next` is not looked at (SQLite reads on). Both claim "up to
            // the limit", but they answer differently.
            withKnownIssue("PostgreSQL's claim of one statement reads `limit` candidates only; a lost job passed by shrinks it") {
                #expect(claimed == [first, next])
            } when: {
                kind == .postgres
            }
        }
    }
}
