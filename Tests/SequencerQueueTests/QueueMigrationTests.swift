import Foundation
import GRDB
import SequencerHistory
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// Files of each released schema version open, with their jobs, in this build. Each version has
/// a fixture: the SQL of a small queue written by that version (`Fixtures/queue-vN.sql`, with its
/// `user_version` and `application_id`).
@Suite struct QueueMigrationTests {
    static func fixture(_ name: String) throws -> String {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        return try String(contentsOf: here.appendingPathComponent("Fixtures/\(name)"), encoding: .utf8)
    }

    @Test func aVersion1QueueOpensWithItsJobs() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v1.sqlite")
        try await DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: Self.fixture("queue-v1.sql")) }
        let store = try SQLiteQueueStore(path: path)
        #expect(try store.schemaVersion() == QueueSchema.current)
        #expect(try await store.counts() == [.succeeded: 1, .running: 1, .waiting: 1, .available: 1])
        let waiting = try #require(try await store.job(DurableJobID(3)))
        #expect(waiting.state == .waiting && waiting.kind == "apply" && waiting.key == "apply-7")
        // The running job's lease expired long ago: taken back, then its dependent runs after it.
        #expect(try await store.reap(now: 2_000_000_000_000, poisonLimit: 3) == 1)
        let claimed = try await store.claim(kinds: ["fetch", "apply"], limit: 5, owner: "new", now: 2_000_000_000_000, leaseUntil: 2_000_000_030_000)
        #expect(Set(claimed.map(\.id)) == [DurableJobID(2), DurableJobID(4)])
        let fetch = try #require(claimed.first { $0.id == DurableJobID(2) })
        #expect(fetch.attempt == 2 && fetch.retry.maxAttempts == 5 && fetch.lane == "network")
        _ = try await store.finish([AttemptEnd(id: fetch.id, attempt: 2, owner: "new", outcome: .succeeded(Data("{}".utf8)))], now: 2_000_000_000_001)
        #expect(try await store.job(DurableJobID(3))?.state == .available)
        #expect(try store.integrityProblems().isEmpty)
    }

    @Test func aVersion3QueueOpensAndClaimsAhead() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v3.sqlite")
        try await DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: Self.fixture("queue-v3.sql")) }
        let store = try SQLiteQueueStore(path: path)
        #expect(try store.schemaVersion() == QueueSchema.current)
        #expect(try await store.counts() == [.succeeded: 1, .running: 1, .waiting: 1, .available: 1])
        // The running job was claimed before claims ahead existed: its worker's end counts.
        #expect(try await store.reap(now: 2_000_000_000_000, poisonLimit: 3) == 1)
        #expect(try await store.job(DurableJobID(2))?.crashes == 1)
        let claimed = try await store.claim(
            kinds: ["fetch", "apply"], limit: 5, slots: 1, owner: "new", now: 2_000_000_000_000, leaseUntil: 2_000_000_000_100)
        #expect(Set(claimed.map(\.id)) == [DurableJobID(2), DurableJobID(4)])
        #expect(try await store.reap(now: 2_000_000_000_101, poisonLimit: 3) == 2)
        // The fetch (priority 2) took the slot and counts; the apply waited ahead and does not.
        #expect(try await store.job(DurableJobID(2))?.crashes == 2)
        #expect(try await store.job(DurableJobID(4))?.crashes == 0)
        #expect(try store.integrityProblems().isEmpty)
    }

    /// Version 5 keeps fingerprints in the journal's encoding: version 4's JSON objects are
    /// converted; one that is not JSON becomes empty (its job runs once, and is recorded anew).
    @Test func aVersion4QueuesFingerprintsReadInTheOneEncoding() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v4.sqlite")
        try await DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: Self.fixture("queue-v4.sql")) }
        let store = try SQLiteQueueStore(path: path)
        #expect(try store.schemaVersion() == QueueSchema.current)
        let found = try await store.fingerprints(workflow: "app")
        #expect(found["compile"] == Fingerprint(fingerprint: "f1", parts: ["command": "c1", "input:src/a.c": "h1"], outputs: ["out/a.o": "10:20:30"]))
        #expect(found["compile"]?.partsText == "command\tc1\ninput:src/a.c\th1")
        #expect(found["odd"] == Fingerprint(fingerprint: "f2", parts: [:], outputs: [:]))
        #expect(try await store.counts() == [.succeeded: 1, .running: 1, .waiting: 1, .available: 1])
        #expect(try store.integrityProblems().isEmpty)
    }

    /// Version 7 adds what operating a queue reads: a version 6 file's jobs are counted by the
    /// gauges, its workers' beats are kept, and a waiting job released from then on says since
    /// when it could run.
    @Test func aVersion6QueueGainsWorkersAndGauges() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v6.sqlite")
        try await DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: Self.fixture("queue-v6.sql")) }
        let store = try SQLiteQueueStore(path: path)
        #expect(try store.schemaVersion() == QueueSchema.current)
        let now: Int64 = 2_000_000_000_000
        let gauges = try #require(try await store.readGauges(reader: "r", now: now, holdUntil: now + 1))
        #expect(gauges.depth == [
            QueueGauges.Group(kind: "fetch", lane: "network"): [.running: 1],
            QueueGauges.Group(kind: "apply", lane: ""): [.waiting: 1, .available: 1],
        ])
        #expect(gauges.oldestAvailableSince == [QueueGauges.Group(kind: "apply", lane: ""): 1_700_000_000_000])
        #expect(try await store.reap(now: now, poisonLimit: 3) == 1)
        let fetch = try #require(try await store.claim(kinds: ["fetch"], limit: 1, owner: "new", now: now, leaseUntil: now + 30_000).first)
        _ = try await store.finish([AttemptEnd(id: fetch.id, attempt: fetch.attempt, owner: "new", outcome: .succeeded(Data("{}".utf8)))], now: now + 5)
        let applies = try await store.claim(kinds: ["apply"], limit: 5, owner: "new", now: now + 10, leaseUntil: now + 30_000)
        #expect(applies.first { $0.id == DurableJobID(3) }?.availableSince == now + 5, "released by fetch's end")
        try await store.beat(WorkerBeat(owner: "new", host: "h", pid: 1, startedAt: now, holding: 2, aliveUntil: now + 30_000), now: now)
        #expect(try await store.workers(now: now).map(\.holding) == [2])
        #expect(try store.integrityProblems().isEmpty)
    }

    /// Version 8 adds what the queue page shows and records: a version 7 file's worker keeps
    /// its beat (with no kinds until it beats again), its failed job is retried, and the
    /// action is recorded.
    @Test func aVersion7QueueGainsWorkersKindsAndActions() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v7.sqlite")
        try await DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: Self.fixture("queue-v7.sql")) }
        let store = try SQLiteQueueStore(path: path)
        #expect(try store.schemaVersion() == QueueSchema.current)
        let now: Int64 = 2_000_000_000_000
        let workers = try await store.workers(now: now)
        #expect(workers.map(\.owner) == ["old-worker"])
        #expect(workers.map(\.kinds) == [[]])
        #expect(workers.map(\.beatAt) == [1_700_000_000_005])
        #expect(try await store.latestJobs(in: [.failed], before: nil, limit: 5).map(\.id) == [DurableJobID(2)])
        #expect(try await store.retry(DurableJobID(2), now: now) == nil)
        #expect(try await store.job(DurableJobID(2))?.state == .available)
        let action = QueueAction(at: now, action: "retry", job: DurableJobID(2), who: "ops", address: "127.0.0.1:1", result: "done")
        try await store.record(action)
        #expect(try await store.actions(limit: 5) == [action])
        #expect(try store.integrityProblems().isEmpty)
    }
}
