import Foundation
import Sequencer
import SequencerQueue
import Testing

/// Leases on both stores: `heartbeat(owner:jobs:leaseUntil:now:)` renews them, and
/// `reap(now:poisonLimit:)` takes back the jobs whose lease expired, or fails them as poison.
@Suite(.serialized) struct ContractLeaseTests {
    @Test(arguments: StoreKind.testable)
    func aHeartbeatOfNoJobsNamesNone(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            _ = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne()
            #expect(try await steps.store.heartbeat(owner: "w1", jobs: [], leaseUntil: 1_000, now: 10).isEmpty)
        }
    }

    /// A heartbeat names, to be stopped, every job its owner does not run: no job, a job never
    /// claimed, a job that ended, another owner's job, whose lease it does not renew.
    @Test(arguments: StoreKind.testable)
    func aHeartbeatNamesTheJobsItsOwnerDoesNotRunAndRenewsNoneOfThem(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ended = try await steps.enqueue(Steps.job())
            #expect(try await steps.succeed(try await steps.claimOne(), at: 1))
            let others = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne("w2", at: 2, lease: 100)
            let never = try await steps.enqueue(Steps.job("later"))
            let mine = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne("w1", at: 3, lease: 100)
            let asked = [DurableJobID(9_999), never, ended, others, mine]
            let stop = try await steps.store.heartbeat(owner: "w1", jobs: asked, leaseUntil: 10_000, now: 50)
            #expect(stop == [DurableJobID(9_999), never, ended, others])
            #expect(try await steps.store.reap(now: 103, poisonLimit: 3) == 1, "w2's lease was not renewed by w1")
            #expect(try await steps.state(others) == .available)
            #expect(try await steps.stored(mine).owner == "w1")
        }
    }

    /// A lease is taken back only once its time has passed: at its last moment it still holds.
    @Test(arguments: StoreKind.testable)
    func aLeaseHoldsUntilItsLastMomentAndExpiresAfter(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne(at: 0, lease: 1_000)
            #expect(try await steps.store.reap(now: 1_000, poisonLimit: 3) == 0)
            #expect(try await steps.state(a) == .running)
            #expect(try await steps.store.reap(now: 1_001, poisonLimit: 3) == 1)
        }
    }

    /// A job taken back is available at once, its crash counted and explained, its attempt
    /// kept: the next claim is its next attempt.
    @Test(arguments: StoreKind.testable)
    func aJobTakenBackIsAvailableAtOnceWithItsCrashCountedAndExplained(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne("w1", at: 0, lease: 1_000)
            #expect(try await steps.store.reap(now: 1_500, poisonLimit: 3) == 1)
            let job = try await steps.stored(a)
            #expect(job.state == .available && job.owner == nil && job.runAt == 1_500 && job.endedAt == nil)
            #expect(job.crashes == 1 && job.attempts == 1 && job.errorCode == "crashed")
            #expect(job.error == "its worker w1 ended or lost its lease during attempt 1")
            #expect(try await steps.claim("w2", at: 1_500).map(\.attempt) == [2])
        }
    }

    /// The reaper leaves alone every job that is not running on an expired lease.
    @Test(arguments: StoreKind.testable)
    func aReapLeavesPendingEndedAndLeasedJobsAlone(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let done = try await steps.enqueue(Steps.job())
            #expect(try await steps.succeed(try await steps.claimOne(at: 0, lease: 10), at: 5))
            let leased = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne(at: 0, lease: 10_000)
            _ = try await steps.enqueue(Steps.job(at: 0))
            _ = try await steps.enqueue(Steps.job(needs: [leased]))
            #expect(try await steps.store.reap(now: 9_000, poisonLimit: 1) == 0)
            #expect(try await steps.store.counts() == [.succeeded: 1, .running: 1, .available: 1, .waiting: 1])
            #expect(try await steps.stored(done).crashes == 0)
        }
    }

    /// With a poison limit of one, a job fails at its first crash, and its dependents are
    /// skipped in the same reap.
    @Test(arguments: StoreKind.testable)
    func aPoisonLimitOfOneFailsAJobAtItsFirstCrash(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let b = try await steps.enqueue(Steps.job(needs: [a]))
            _ = try await steps.claimOne("w9", at: 0, lease: 100)
            #expect(try await steps.store.reap(now: 200, poisonLimit: 1) == 1)
            let job = try await steps.stored(a)
            #expect(job.state == .failed && job.endedAt == 200 && job.crashes == 1 && job.errorCode == "crashed" && job.owner == nil)
            #expect(job.error?.contains("1 times (the last: w9, attempt 1)") == true, "\(job.error ?? "-")")
            let skipped = try await steps.stored(b)
            #expect(skipped.state == .skipped && skipped.cause == a && skipped.endedAt == 200)
        }
    }

    /// One reap takes back every expired lease, and counts the jobs it failed as poison with
    /// those it made available.
    @Test(arguments: StoreKind.testable)
    func aReapCountsEveryJobItTakesBackPoisonedOrNot(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne(at: 0, lease: 100)
            #expect(try await steps.store.reap(now: 101, poisonLimit: 2) == 1)
            let b = try await steps.enqueue(Steps.job())
            #expect(try await steps.claim("w2", at: 200, lease: 100).map(\.id) == [a, b])
            #expect(try await steps.store.reap(now: 301, poisonLimit: 2) == 2)
            #expect(try await steps.state(a) == .failed)
            #expect(try await steps.stored(b).crashes == 1)
            #expect(try await steps.state(b) == .available)
        }
    }

    /// Crashes add up across a job's attempts, retries between them included, until the limit.
    @Test(arguments: StoreKind.testable)
    func crashesAddUpAcrossRetriesUntilThePoisonLimit(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job(retry: StoredRetry(maxAttempts: 9, initialMilliseconds: 10, multiplier: 1, maximumMilliseconds: 10, jitter: 0)))
            _ = try await steps.claimOne(at: 0, lease: 100)
            #expect(try await steps.store.reap(now: 101, poisonLimit: 2) == 1)
            #expect(try await steps.fail(try await steps.claimOne(at: 101), retryAt: 300, at: 200))
            #expect(try await steps.state(a) == .available)
            _ = try await steps.claimOne(at: 300, lease: 100)
            #expect(try await steps.store.reap(now: 401, poisonLimit: 2) == 1)
            let job = try await steps.stored(a)
            #expect(job.state == .failed && job.crashes == 2 && job.attempts == 3)
        }
    }

    /// An end that comes after its lease expired, but before any reap took the job back, is
    /// still the end of the attempt that holds the job: it is recorded.
    @Test(arguments: StoreKind.testable)
    func anEndAfterTheLeaseButBeforeTheReapIsRecorded(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            let held = try await steps.claimOne(at: 0, lease: 100)
            #expect(try await steps.succeed(held, at: 500))
            #expect(try await steps.store.reap(now: 600, poisonLimit: 1) == 0)
            #expect(try await steps.stored(a).crashes == 0)
        }
    }

    /// A heartbeat after the lease's end, before a reap, renews it: the job is its owner's.
    @Test(arguments: StoreKind.testable)
    func aHeartbeatAfterTheLeaseButBeforeTheReapRenewsIt(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne(at: 0, lease: 100)
            #expect(try await steps.store.heartbeat(owner: "w1", jobs: [a], leaseUntil: 1_000, now: 150).isEmpty)
            #expect(try await steps.store.reap(now: 900, poisonLimit: 3) == 0)
            #expect(try await steps.store.heartbeat(owner: "w1", jobs: [a], leaseUntil: 2_000, now: 950).isEmpty)
            #expect(try await steps.store.reap(now: 1_500, poisonLimit: 3) == 0)
            #expect(try await steps.store.reap(now: 2_001, poisonLimit: 3) == 1)
        }
    }
}
