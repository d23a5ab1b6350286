import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import Sequencer
import SequencerPostgres
import SequencerQueue
import Testing
import SequencerTestHelpers

/// An end that races an enqueue of a job that needs the ending job, on a real server, with the
/// interleaving forced: the enqueue has read the need `FOR SHARE` and inserted its edge, and
/// commits only once the end waits for it.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .suiteTimeLimit)
struct PostgresEndRaceTests {
    /// Before the fix, the success and the release of dependents were one statement, whose
    /// snapshot predates the enqueue's commit: the new edge was not seen, and the dependent
    /// waited for good (the crash harness found it: jobs left waiting).
    @Test func aDependentEnqueuedWhileItsNeedEndsIsReleased() async throws {
        try await TestServer.withDatabase { url in
            let store = try await PostgresQueueStore(url: url)
            let need = try #require(try await store.enqueue([Steps.job()], now: 0).first)
            let claimed = try await store.claim(kinds: ["k"], limit: 1, owner: "w", now: 0, leaseUntil: 60_000)
            #expect(claimed.map(\.id) == [need])
            let logger = Logger(label: "race", factory: { _ in SwiftLogNoOpLogHandler() })
            let enqueuer = try await PostgresConnection.connect(configuration: PostgresURL(url).connection, id: 9, logger: logger)
            try await enqueuer.query("BEGIN", logger: logger)
            _ = try await enqueuer.query("SELECT id FROM sequencer.jobs WHERE id = \(need.rawValue) FOR SHARE", logger: logger).collect()
            let inserted = try await enqueuer.query(
                """
                INSERT INTO sequencer.jobs (kind, input, state, priority, pending_needs, run_at, enqueued_at)
                VALUES ('k', '\\x7b7d'::bytea, 0, 17, 1, 0, 0) RETURNING id
                """, logger: logger
            ).collect()
            let dependent = try #require(try inserted.first?.decode(Int64.self))
            try await enqueuer.query("INSERT INTO sequencer.needs (need, job) VALUES (\(need.rawValue), \(dependent))", logger: logger)
            let ending = Task {
                try await store.finish([AttemptEnd(id: need, attempt: 1, owner: "w", outcome: .succeeded(Data("{}".utf8)))], now: 1)
            }
            // The end waits for the enqueue's row lock on its job.
            let waiting = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            let deadline = ContinuousClock.now + .seconds(30)
            while try await TestServer.number(url, waiting) == 0, ContinuousClock.now < deadline { await Task.yield() }
            try await enqueuer.query("COMMIT", logger: logger)
            try await enqueuer.close()
            #expect(try await ending.value == [true])
            #expect(try await store.job(DurableJobID(dependent))?.state == .available, "the dependent's counter was released")
            try await store.close()
        }
    }
}
