import Foundation
import Sequencer
import SequencerTestSupport
import Testing
@testable import SequencerQueue

/// A worker outlives a store that fails for a while (the database went away, the file stayed
/// locked), and stops for a store it cannot use.
@Suite(.timeLimit(.minutes(1)))
struct StoreTroubleTests {
    /// An SQLite store whose turns fail while `failures` is above zero (a fake for the failure
    /// only: everything else is the real store).
    final class TroubledStore: QueueStore {
        let store: SQLiteQueueStore
        let failures: Locked<Int>
        let code: QueueError.Code

        init(_ store: SQLiteQueueStore, failures: Int, code: QueueError.Code = .database) {
            self.store = store
            self.failures = Locked(failures)
            self.code = code
        }

        func finishAndClaim(
            _ ends: [AttemptEnd], kinds: [String], limit: Int, owner: String, now: Int64, leaseUntil: Int64
        ) async throws -> (recorded: [Bool], claimed: [ClaimedJob]) {
            let fail = failures.withLock { left in
                defer { left -= 1 }
                return left > 0
            }
            if fail { throw QueueError(code: code, location: "troubled", message: "the server went away") }
            return try await store.finishAndClaim(ends, kinds: kinds, limit: limit, owner: owner, now: now, leaseUntil: leaseUntil)
        }

        func enqueue(_ jobs: [NewDurableJob], now: Int64) async throws -> [DurableJobID] { try await store.enqueue(jobs, now: now) }
        func claim(kinds: [String], limit: Int, owner: String, now: Int64, leaseUntil: Int64) async throws -> [ClaimedJob] {
            try await store.claim(kinds: kinds, limit: limit, owner: owner, now: now, leaseUntil: leaseUntil)
        }
        func finish(_ ends: [AttemptEnd], now: Int64) async throws -> [Bool] { try await store.finish(ends, now: now) }
        func heartbeat(owner: String, jobs: [DurableJobID], leaseUntil: Int64, now: Int64) async throws -> [DurableJobID] {
            try await store.heartbeat(owner: owner, jobs: jobs, leaseUntil: leaseUntil, now: now)
        }
        func reap(now: Int64, poisonLimit: Int) async throws -> Int { try await store.reap(now: now, poisonLimit: poisonLimit) }
        func cancel(_ id: DurableJobID, now: Int64) async throws -> DurableJobState? { try await store.cancel(id, now: now) }
        func setLane(_ name: String, width: Int) async throws { try await store.setLane(name, width: width) }
        func job(_ id: DurableJobID) async throws -> DurableJob? { try await store.job(id) }
        func jobs(in states: [DurableJobState], after: DurableJobID?, limit: Int) async throws -> [DurableJob] {
            try await store.jobs(in: states, after: after, limit: limit)
        }
        func counts() async throws -> [DurableJobState: Int] { try await store.counts() }
        func nextRunTime(kinds: [String], after now: Int64) async throws -> Int64? { try await store.nextRunTime(kinds: kinds, after: now) }
        func prune(endedBefore: Int64, includingFailures: Bool) async throws -> Int {
            try await store.prune(endedBefore: endedBefore, includingFailures: includingFailures)
        }
        func close() async throws { try await store.close() }
    }

    @Test func aWorkerWaitsOutAStoreThatFailsAndGoesOn() async throws {
        let directory = try TemporaryDirectory()
        let store = TroubledStore(try SQLiteQueueStore(path: directory.file("q.sqlite")), failures: 3)
        let heard = Locked<[String]>([])
        var options = DurableQueue.Options(poll: .milliseconds(10))
        options.storeTrouble = { error in heard.withLock { $0.append(error.message) } }
        let queue = DurableQueue(store: store, options: options)
        queue.register("double") { (input: Int, _: JobContext) in input * 2 }
        let id = try await queue.enqueue("double", 21)
        try await DurableQueueTests.working(queue) { () async throws in
            #expect(try await queue.result(of: id, as: Int.self) == 42)
        }
        #expect(heard.withLock { $0 } == Array(repeating: "the server went away", count: 3))
    }

    @Test func aStoreItCannotUseEndsTheWork() async throws {
        let directory = try TemporaryDirectory()
        let store = TroubledStore(try SQLiteQueueStore(path: directory.file("q.sqlite")), failures: 1, code: .newerVersion)
        let queue = DurableQueue(store: store, options: DurableQueue.Options(poll: .milliseconds(10)))
        queue.register("double") { (input: Int, _: JobContext) in input * 2 }
        _ = try await queue.enqueue("double", 21)
        let error = await #expect(throws: QueueError.self) { try await queue.work() }
        #expect(error?.code == .newerVersion)
    }
}
