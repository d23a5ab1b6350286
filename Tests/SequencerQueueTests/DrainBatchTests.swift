import Foundation
import GRDB
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// A backlog of short jobs is drained in batches: a worker's turn records many ends and claims
/// many jobs in one transaction, and an end held for a batch is still recorded soon.
@Suite(.suiteTimeLimit)
struct DrainBatchTests {
    /// Counts the commits of a store's connection.
    final class Commits: TransactionObserver, Sendable {
        let count = Locked(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    @Test func aBacklogOfShortJobsSharesItsTransactions() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteQueueStore(path: directory.file("q.sqlite"))
        // None ahead to begin with: the window grows from 0.
        let queue = DurableQueue(store: store, options: .init(claimAhead: 0))
        queue.register("noop") { (input: Int, _: JobContext) -> Int in input }
        let jobs = 1_000
        _ = try await queue.enqueue(try (0..<jobs).map { try DurableQueue.Request("noop", $0) })
        let commits = Commits()
        try await store.database.writeWithoutTransaction { $0.add(transactionObserver: commits, extent: .databaseLifetime) }
        try await DurableQueueTests.working(queue) { () async throws in
            while true {
                let rung = queue.doorbell.version
                if try await queue.counts()[.succeeded] == jobs { break }
                try await queue.doorbell.wait(after: rung, upTo: .seconds(3600), clock: queue.clock)
            }
        }
        // Without the window a turn claimed 2 jobs at most (2 slots, none ahead): 500
        // transactions at least. With it, the window grows as soon as jobs end faster than one
        // per slot every 25 ms: about 20 here, 42 with 16 ahead on a machine loaded by the
        // whole test suite, 228 to 334 under the thread sanitizer. The bound is below the 500
        // that a worker without the window needs at least.
        let count = commits.count.withLock { $0 }
        #expect(count < jobs / 2, "\(count) transactions for \(jobs) jobs")
    }

    @Test func anEndIsRecordedWhileTheJobsClaimedWithItWait() async throws {
        let directory = try TemporaryDirectory()
        // A manual clock that never moves: no poll comes to record the end.
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")), options: .init(clock: ManualClock()))
        let gate = Gate()
        queue.register("quick") { (input: Int, _: JobContext) -> Int in input }
        queue.register("wait") { (input: Int, _: JobContext) -> Int in
            await gate.wait()
            return input
        }
        let quick = try await queue.enqueue("quick", 7)
        let waiting = try await queue.enqueue(try (0..<4).map { try DurableQueue.Request("wait", $0) })
        try await DurableQueueTests.working(queue, maxConcurrency: 1) { () async throws in
            // One slot: the quick job ends, then the others wait behind the first blocked one,
            // so no batch fills up; the end is recorded all the same.
            #expect(try await queue.result(of: quick, as: Int.self) == 7)
            gate.open()
            for (index, id) in waiting.enumerated() { #expect(try await queue.result(of: id, as: Int.self) == index) }
        }
    }

    @Test func aTurnRunsAboutTwoStatementsPerJobWithoutDependents() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteQueueStore(path: directory.file("q.sqlite"))
        let jobs = 50
        _ = try await store.enqueue((0..<2 * jobs).map { _ in NewDurableJob(kind: "k", input: Data("{}".utf8), runAt: 0) }, now: 0)
        let claimed = try await store.claim(kinds: ["k"], limit: jobs, owner: "w", now: 1, leaseUntil: 100)
        let statements = Locked(0)
        try await store.database.writeWithoutTransaction { db in
            db.trace(options: .statement) { _ in statements.withLock { $0 += 1 } }
        }
        let ends = claimed.map { AttemptEnd(id: $0.id, attempt: $0.attempt, owner: "w", outcome: .succeeded(Data("1".utf8))) }
        let turn = try await store.finishAndClaim(ends, kinds: ["k"], limit: jobs, owner: "w", now: 2, leaseUntil: 100)
        #expect(turn.recorded == Array(repeating: true, count: jobs) && turn.claimed.count == jobs)
        // Each end: its update, and the deletion of its needs (none); the claim: one read and one
        // write for the page. It was three statements an end and one a claimed job.
        let count = statements.withLock { $0 }
        #expect(count <= 2 * jobs + 10, "\(count) statements for \(jobs) ends and \(jobs) claims")
        #expect(try await store.counts() == [.succeeded: jobs, .running: jobs])
    }

    @Test func theClaimWindowGrowsWithShortJobsOnly() {
        let start = ContinuousClock.now
        // 10 ends every half millisecond: 500 in the window's 25 ms.
        var short = ClaimWindow(claimAhead: 16)
        for turn in 0..<12 { short.turn(ended: 10, at: start + .microseconds(500 * turn)) }
        #expect(short.ahead > 400 && short.ahead <= 500)
        // 2 ends a second: the window stays at claimAhead.
        var long = ClaimWindow(claimAhead: 16)
        for turn in 0..<12 { long.turn(ended: 2, at: start + .seconds(turn)) }
        #expect(long.ahead == 16)
        var capped = ClaimWindow(claimAhead: 16)
        for _ in 0..<20 { capped.turn(ended: 1_000, at: start) }
        #expect(capped.ahead == ClaimWindow.maximum)
    }
}
