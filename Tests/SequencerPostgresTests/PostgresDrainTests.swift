import Foundation
import PostgresTestSupport
import Sequencer
@testable import SequencerQueue
import Testing
@testable import SequencerPostgres
import SequencerTestHelpers

/// The PostgreSQL store's calls send a fixed few statements (round trips), whatever the number
/// of jobs they carry: an enqueue, a claim and a batch of ends each, and a worker's turn. The
/// statements are counted by the store itself (``PostgresQueueStore/statements``), for the task
/// that sets the counter and the tasks it starts.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .suiteTimeLimit)
struct PostgresDrainTests {
    /// `body`'s statements.
    static func counting(_ body: () async throws -> Void) async rethrows -> Int {
        let statements = Locked(0)
        try await PostgresQueueStore.$statements.withValue(statements) { try await body() }
        return statements.withLock { $0 }
    }

    static func job(needs: [DurableJobID] = [], needsInBatch: [Int] = [], input: Data = Data("{}".utf8)) -> NewDurableJob {
        NewDurableJob(kind: "k", input: input, needs: needs, needsInBatch: needsInBatch, runAt: 0)
    }

    /// A thousand jobs, each needing the one before it in the batch and a job enqueued before:
    /// one enqueue, a few statements (it was about three per job).
    @Test func aBatchIsEnqueuedInAFewStatements() async throws {
        try await TestServer.withDatabase { url in
            let store = try await PostgresQueueStore(url: url)
            let first = try #require(try await store.enqueue([Self.job()], now: 0).first)
            let jobs = 1_000
            var ids: [DurableJobID] = []
            let statements = try await Self.counting {
                ids = try await store.enqueue((0..<jobs).map { Self.job(needs: [first], needsInBatch: $0 == 0 ? [] : [$0 - 1]) }, now: 0)
            }
            // BEGIN, the IDs, the needs' states, the rows, the edges, COMMIT.
            #expect(statements <= 6, "\(statements) statements to enqueue \(jobs) jobs")
            #expect(ids.count == jobs && Set(ids).count == jobs && !ids.contains(first))
            #expect(try await store.counts() == [.available: 1, .waiting: jobs])
            // The chain holds: ending the first job and then each job of the batch in turn
            // makes exactly the next one available.
            var next = first
            for id in ids.prefix(3) {
                let claimed = try await store.claim(kinds: ["k"], limit: 10, owner: "w", now: 1, leaseUntil: 100)
                #expect(claimed.map(\.id) == [next])
                let end = AttemptEnd(id: next, attempt: 1, owner: "w", outcome: .succeeded(Data("1".utf8)))
                #expect(try await store.finish([end], now: 2) == [true])
                next = id
            }
            try await store.close()
        }
    }

    /// A claim of a hundred jobs is one statement in its transaction (it was a read and an
    /// update), and their ends are one more (two per job before), fenced all the same: an end
    /// of a stale attempt or of another owner changes nothing; a dependent of two of them
    /// becomes available once, when both have ended in the same statement.
    @Test func aClaimAndABatchOfEndsAreOneStatementEach() async throws {
        try await TestServer.withDatabase { url in
            let store = try await PostgresQueueStore(url: url)
            let jobs = 100
            let ids = try await store.enqueue((0..<jobs).map { _ in Self.job() } + [Self.job(needsInBatch: [0, 1])], now: 0)
            var claimed: [ClaimedJob] = []
            let claiming = try await Self.counting {
                claimed = try await store.claim(kinds: ["k"], limit: jobs, owner: "w", now: 1, leaseUntil: 100)
            }
            #expect(claiming == 3, "\(claiming) statements to claim \(jobs) jobs")  // BEGIN, the claim, COMMIT
            #expect(claimed.map(\.id) == Array(ids.prefix(jobs)))
            var ends = claimed.map { AttemptEnd(id: $0.id, attempt: $0.attempt, owner: "w", outcome: .succeeded(Data("\($0.id)".utf8))) }
            ends[2].attempt = 2
            ends[3].owner = "other"
            var recorded: [Bool] = []
            let ending = try await Self.counting { recorded = try await store.finish(ends, now: 2) }
            // BEGIN, the ends, the release of their dependents, the notification (one became
            // available), COMMIT.
            #expect(ending == 5, "\(ending) statements to record \(jobs) ends")
            #expect(recorded == (0..<jobs).map { $0 != 2 && $0 != 3 })
            #expect(try await store.counts() == [.succeeded: jobs - 2, .running: 2, .available: 1])
            #expect(try await store.job(ids[5])?.output == Data("\(ids[5])".utf8))
            let dependent = try await store.claim(kinds: ["k"], limit: 10, owner: "w", now: 3, leaseUntil: 100)
            #expect(dependent.map(\.id) == [ids[jobs]])
            try await store.close()
        }
    }

    /// A worker drains a backlog of a thousand jobs, flat and as a graph of layers, in a few
    /// statements per turn: under one per job.
    @Test(arguments: [false, true])
    func aDrainRunsAFewStatementsPerTurn(layered: Bool) async throws {
        try await TestServer.withDatabase { url in
            let store = try await PostgresQueueStore(url: url)
            let queue = DurableQueue(store: store)
            queue.register("k") { (_: Int, _: JobContext) in 0 }
            let input = try DurableQueue.Request("k", 0).job.input
            let jobs = 1_000
            // Layers of 100: each job of a layer needs two of the layer before.
            let batch = (0..<jobs).map { index in
                Self.job(needsInBatch: layered && index >= 100 ? [index - 100, (index / 100 - 1) * 100 + (index * 7) % 100] : [], input: input)
            }
            _ = try await store.enqueue(batch, now: 0)
            let statements = Locked(0)
            let worker = PostgresQueueStore.$statements.withValue(statements) { Task { try await queue.work(maxConcurrency: 2) } }
            while true {
                let rung = queue.doorbell.version
                let counts = try await queue.counts()
                if counts[.succeeded] == jobs { break }
                try #require(counts[.failed] == nil && counts[.skipped] == nil, "\(counts)")
                try await queue.doorbell.wait(after: rung, upTo: .seconds(3600), clock: queue.clock)
            }
            worker.cancel()
            try await worker.value
            // Here 122 to 163 flat and 247 to 296 layered; each end alone was 2 statements:
            // 2,421 and 2,491. The bound leaves room for the smaller turns of a loaded machine.
            let count = statements.withLock { $0 }
            #expect(count <= jobs * 4 / 5, "\(count) statements to drain \(jobs) jobs")
            try await store.close()
        }
    }
}
