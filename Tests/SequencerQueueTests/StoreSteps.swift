import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// A store in a temporary directory, driven step by step with explicit times.
struct StoreSteps {
    let directory: TemporaryDirectory
    let store: SQLiteQueueStore
    var path: String { store.path }

    init() throws {
        directory = try TemporaryDirectory()
        store = try SQLiteQueueStore(path: directory.file("queue.sqlite"))
    }

    static func job(
        _ kind: String = "k", key: String? = nil, needs: [DurableJobID] = [], lane: String? = nil, priority: Priority = .utility,
        retry: StoredRetry = .none, at time: Int64 = 0
    ) -> NewDurableJob {
        NewDurableJob(kind: kind, input: Data("{}".utf8), key: key, needs: needs, priority: priority, lane: lane, retry: retry, runAt: time)
    }

    func enqueue(_ job: NewDurableJob, at now: Int64 = 0) async throws -> DurableJobID {
        try await store.enqueue([job], now: now)[0]
    }

    func claim(_ owner: String = "w1", kinds: [String] = ["k"], limit: Int = 10, at now: Int64 = 0, lease: Int64 = 30_000) async throws -> [ClaimedJob] {
        try await store.claim(kinds: kinds, limit: limit, owner: owner, now: now, leaseUntil: now + lease)
    }

    func succeed(_ job: ClaimedJob, owner: String = "w1", output: String = "{}", at now: Int64 = 0) async throws -> Bool {
        try await store.finish([AttemptEnd(id: job.id, attempt: job.attempt, owner: owner, outcome: .succeeded(Data(output.utf8)))], now: now)[0]
    }

    func fail(_ job: ClaimedJob, owner: String = "w1", retryAt: Int64? = nil, at now: Int64 = 0) async throws -> Bool {
        try await store.finish(
            [AttemptEnd(id: job.id, attempt: job.attempt, owner: owner, outcome: .failed(code: "failed", message: "boom", retryAt: retryAt))],
            now: now)[0]
    }

    func state(_ id: DurableJobID) async throws -> DurableJobState? { try await store.job(id)?.state }
}
