import Foundation
import Sequencer
import SequencerQueue
import SequencerQueueSQLite
import Testing
import SequencerTestHelpers

/// `prune(endedBefore:includingFailures:)`, `close()`, `wakeUps()` and `cancelNotices()` on
/// both stores.
@Suite(.serialized, .suiteTimeLimit) struct ContractPruneTests {
    /// Live jobs are never pruned, however old.
    @Test(arguments: StoreKind.testable)
    func liveJobsAreNeverPrunedHoweverOld(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            _ = try await steps.enqueue(Steps.job(needs: [a]))
            _ = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne()
            #expect(try await steps.store.prune(endedBefore: .max, includingFailures: true) == 0)
            #expect(try await steps.store.counts() == [.running: 1, .waiting: 1, .available: 1])
        }
    }

    /// Without failures, only succeeded jobs go; with them, failed, cancelled and skipped ones
    /// too, each by the time it ended, before the time given and not at it.
    @Test(arguments: StoreKind.testable)
    func eachEndedStateIsPrunedByItsEndTime(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(), Steps.job(), Contract.after(1), Steps.job()], now: 0)
            let held = try await steps.claim(limit: 2)
            #expect(try await steps.succeed(held[0], at: 100))
            #expect(try await steps.fail(held[1], at: 200))
            #expect(try await steps.store.cancel(ids[3], now: 300) == .cancelled)
            #expect(try await steps.store.prune(endedBefore: 100, includingFailures: true) == 0)
            #expect(try await steps.store.prune(endedBefore: 1_000, includingFailures: false) == 1)
            #expect(try await steps.store.job(ids[0]) == nil)
            #expect(try await steps.store.prune(endedBefore: 200, includingFailures: true) == 0)
            #expect(try await steps.store.prune(endedBefore: 201, includingFailures: true) == 2, "the failure and the job it skipped")
            #expect(try await steps.store.counts() == [.cancelled: 1])
            #expect(try await steps.store.prune(endedBefore: 301, includingFailures: true) == 1)
            #expect(try await steps.store.counts().isEmpty)
        }
    }

    /// A pruned job is no longer a need: a job that names it is refused.
    @Test(arguments: StoreKind.testable)
    func aPrunedJobIsAnUnknownNeed(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            #expect(try await steps.succeed(try await steps.claimOne(), at: 10))
            #expect(try await steps.store.prune(endedBefore: 11, includingFailures: false) == 1)
            let error = await #expect(throws: QueueError.self) { try await steps.enqueue(Steps.job(needs: [a])) }
            #expect(error?.code == .unknownNeed)
            #expect(try await steps.store.counts().isEmpty)
        }
    }

    /// A pruned job's key is free, and its ID is not given again.
    @Test(arguments: StoreKind.testable)
    func aPrunedJobsKeyIsFreeAndItsIDIsNotGivenAgain(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job(key: "nightly"))
            #expect(try await steps.succeed(try await steps.claimOne(), at: 10))
            #expect(try await steps.store.prune(endedBefore: 11, includingFailures: false) == 1)
            let b = try await steps.enqueue(Steps.job(key: "nightly"), at: 20)
            #expect(b > a)
            #expect(try await steps.stored(b).key == "nightly")
        }
    }

    /// After `close()`, what was written is all in the store: for SQLite, the main file alone
    /// (a copy without its WAL) holds it; for PostgreSQL, a new connection reads it.
    @Test(arguments: StoreKind.testable)
    func afterCloseTheStoreAloneHoldsEverything(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job(key: "kept"))
            #expect(try await steps.succeed(try await steps.claimOne(), output: "\"out\"", at: 10))
            let b = try await steps.enqueue(Steps.job())
            try await steps.store.close()
            let reopened: any QueueStore
            if let sqlite = steps.store as? SQLiteQueueStore {
                let copy = sqlite.path + ".copy"
                try FileManager.default.copyItem(atPath: sqlite.path, toPath: copy)
                reopened = try SQLiteQueueStore(path: copy)
            } else {
                reopened = try await steps.reopen()
            }
            #expect(try await reopened.job(a)?.output == Data("\"out\"".utf8))
            #expect(try await reopened.job(b)?.state == .available)
            #expect(try await reopened.counts() == [.succeeded: 1, .available: 1])
        }
    }

    /// SQLite has no signals (workers poll); PostgreSQL's wake-ups ring once listening starts,
    /// then when a job becomes available again: after a retry's end and after a reap.
    @Test(arguments: StoreKind.testable)
    func wakeUpsRingForRetriesAndReapsOnPostgreSQLOnly(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            guard kind == .postgres else {
                #expect(steps.store.wakeUps() == nil)
                return
            }
            _ = try await steps.enqueue(Steps.job(retry: Contract.threeAttempts))
            let first = try await steps.claimOne(at: 0)
            let listener = try await steps.reopen()
            var wakeUps = try #require(listener.wakeUps()).makeAsyncIterator()
            #expect(await wakeUps.next() != nil, "listening")
            #expect(try await steps.fail(first, retryAt: 50, at: 10))
            #expect(await wakeUps.next() != nil, "the retry")
            _ = try await steps.claimOne(at: 50, lease: 100)
            #expect(try await steps.store.reap(now: 151, poisonLimit: 3) == 1)
            #expect(await wakeUps.next() != nil, "the reap")
        }
    }

    /// SQLite has no signals (workers ask at their heartbeat); PostgreSQL's cancel notices ring
    /// once listening starts, then when a running job is asked to stop.
    @Test(arguments: StoreKind.testable)
    func cancelNoticesRingForARunningJobsCancelOnPostgreSQLOnly(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            guard kind == .postgres else {
                #expect(steps.store.cancelNotices() == nil)
                return
            }
            let a = try await steps.enqueue(Steps.job())
            _ = try await steps.claimOne()
            let listener = try await steps.reopen()
            var notices = try #require(listener.cancelNotices()).makeAsyncIterator()
            #expect(await notices.next() != nil, "listening")
            #expect(try await steps.store.cancel(a, now: 10) == .running)
            #expect(await notices.next() != nil, "the cancel")
        }
    }
}
