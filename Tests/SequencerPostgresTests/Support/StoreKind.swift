import Foundation
import GRDB
import PostgresTestSupport
import Sequencer
import SequencerPostgres
import SequencerQueue
import SequencerTestHelpers
import SequencerTestSupport
import Testing
import SequencerQueueSQLite

/// The stores a state-machine test runs on: the same calls, the same answers.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The kinds there is a database for: PostgreSQL only when `TestServer.available`. Without
    /// PostgreSQL binaries, the PostgreSQL cases of these tests are left out, and the
    /// PostgreSQL-only suites say why they are skipped (`TestServer.skipReason`).
    static let testable: [StoreKind] = TestServer.available ? allCases : [.sqlite]

    /// Runs `body` on a new, empty store of this kind; `Steps.reopen` opens it again, as another
    /// process would.
    func withSteps(_ body: (Steps) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let directory = try TemporaryDirectory()
            let path = directory.file("queue.sqlite")
            let steps = Steps(store: try SQLiteQueueStore(path: path), reopen: { try SQLiteQueueStore(path: path) }) {
                try await DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 99") }
            }
            try await body(steps)
        case .postgres:
            try await TestServer.withDatabase { url in
                let opened = Locked<[PostgresQueueStore]>([])
                let steps = Steps(
                    store: try await PostgresQueueStore(url: url),
                    reopen: {
                        let store = try await PostgresQueueStore(url: url)
                        opened.withLock { $0.append(store) }
                        return store
                    }
                ) { try await TestServer.admin(url, "INSERT INTO sequencer.migrations (version) VALUES (99)") }
                opened.withLock { if let store = steps.store as? PostgresQueueStore { $0.append(store) } }
                var failure: (any Error)?
                do { try await body(steps) } catch { failure = error }
                for store in opened.withLock({ $0 }) { try? await store.close() }
                if let failure { throw failure }
            }
        }
    }
}

/// A store driven step by step with explicit times.
struct Steps: Sendable {
    let store: any QueueStore
    let reopen: @Sendable () async throws -> any QueueStore
    /// Marks the store's schema as written by a newer Sequencer (version 99).
    let markNewer: @Sendable () async throws -> Void

    init(
        store: any QueueStore, reopen: @escaping @Sendable () async throws -> any QueueStore,
        markNewer: @escaping @Sendable () async throws -> Void
    ) {
        self.store = store
        self.reopen = reopen
        self.markNewer = markNewer
    }

    static func job(
        _ kind: String = "k", key: String? = nil, needs: [DurableJobID] = [], lane: String? = nil, priority: Priority = .utility,
        retry: StoredRetry = .none, at time: Int64 = 0
    ) -> NewDurableJob {
        NewDurableJob(kind: kind, input: Data("{}".utf8), key: key, needs: needs, priority: priority, lane: lane, retry: retry, runAt: time)
    }

    func enqueue(_ job: NewDurableJob, at now: Int64 = 0) async throws -> DurableJobID {
        try #require(try await store.enqueue([job], now: now).first)
    }

    /// Claims `limit` jobs, those beyond `slots` (by default none) ahead.
    func claim(
        _ owner: String = "w1", kinds: [String] = ["k"], limit: Int = 10, slots: Int? = nil, at now: Int64 = 0, lease: Int64 = 30_000
    ) async throws -> [ClaimedJob] {
        try await store.claim(kinds: kinds, limit: limit, slots: slots ?? limit, owner: owner, now: now, leaseUntil: now + lease)
    }

    func end(_ job: ClaimedJob, owner: String = "w1", _ outcome: AttemptEnd.Outcome, at now: Int64 = 0) async throws -> Bool {
        let recorded = try await store.finish([AttemptEnd(id: job.id, attempt: job.attempt, owner: owner, outcome: outcome)], now: now)
        try #require(recorded.count == 1)
        return recorded[0]
    }

    func succeed(_ job: ClaimedJob, owner: String = "w1", output: String = "{}", at now: Int64 = 0) async throws -> Bool {
        try await end(job, owner: owner, .succeeded(Data(output.utf8)), at: now)
    }

    func fail(_ job: ClaimedJob, owner: String = "w1", retryAt: Int64? = nil, at now: Int64 = 0) async throws -> Bool {
        try await end(job, owner: owner, .failed(code: "failed", message: "boom", retryAt: retryAt), at: now)
    }

    func state(_ id: DurableJobID) async throws -> DurableJobState? { try await store.job(id)?.state }
}

extension TestServer {
    /// Why the PostgreSQL suites are skipped, when they are.
    static var skipReason: Comment { Comment(rawValue: skipMessage) }
}
