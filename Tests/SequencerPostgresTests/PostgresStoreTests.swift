import Foundation
import PostgresTestSupport
import Sequencer
import SequencerPostgres
import SequencerHistory
import SequencerQueue
import Testing
import SequencerTestHelpers

/// What only a server shared by many processes can show: claims racing on several connections
/// and pools, workers creating the schema at once, notifications, and the errors of a wrong URL.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .suiteTimeLimit)
struct PostgresStoreTests {
    @Test func claimsRacingOnManyConnectionsNeverGetTheSameJob() async throws {
        try await StoreKind.postgres.withSteps { steps in
            let ids = try await steps.store.enqueue((0..<300).map { _ in Steps.job() }, now: 0)
            let claimed = try await Self.race(steps).map(\.id)
            #expect(claimed.count == Set(claimed).count, "no job claimed twice")
            #expect(Set(claimed) == Set(ids), "every job claimed")
            #expect(try await steps.store.counts() == [.running: 300])
        }
    }

    @Test func aLaneOfWidthTwoRunsTwoAtOnceAcrossRacingClaims() async throws {
        try await StoreKind.postgres.withSteps { steps in
            try await steps.store.setLane("net", width: 2)
            // More than a claim's page (32) for each claimer: claims meet the lane at once, each
            // on rows of its own.
            _ = try await steps.store.enqueue((0..<200).map { _ in Steps.job(lane: "net") }, now: 0)
            let claimed = try await Self.race(steps)
            #expect(claimed.count == 2, "two at once across every claimer")
            #expect(try await steps.store.counts() == [.running: 2, .available: 198])
        }
    }

    /// Three stores (three pools, as three processes), two tasks on each, claiming batches of 7
    /// at once until they get none.
    static func race(_ steps: Steps) async throws -> [ClaimedJob] {
        let stores = [steps.store, try await steps.reopen(), try await steps.reopen()]
        return try await withThrowingTaskGroup(of: [ClaimedJob].self) { group in
            for (number, store) in stores.enumerated() {
                for task in 0..<2 {
                    group.addTask {
                        var mine: [ClaimedJob] = []
                        while true {
                            let batch = try await store.claim(kinds: ["k"], limit: 7, owner: "w\(number).\(task)", now: 0, leaseUntil: 30_000)
                            if batch.isEmpty { return mine }
                            mine += batch
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    @Test func workersCreatingTheSchemaAtOnceTakeTurns() async throws {
        try await TestServer.withDatabase { url in
            let stores = try await withThrowingTaskGroup(of: PostgresQueueStore.self) { group in
                for _ in 0..<4 { group.addTask { try await PostgresQueueStore(url: url) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(stores.count == 4)
            let id = try await stores[0].enqueue([Steps.job()], now: 0)
            #expect(try await stores[3].job(id[0])?.state == .available)
            for store in stores { try await store.close() }
        }
    }

    @Test func aVersionOneSchemaIsMigratedToTheCurrentKeepingItsJobs() async throws {
        try await TestServer.withDatabase { url in
            let first = try await PostgresQueueStore(url: url)
            let id = try await first.enqueue([Steps.job()], now: 0)
            try await first.close()
            // Back to version 1, as the first Sequencer with PostgreSQL left it.
            try await TestServer.admin(url, Self.backToVersion6)
            try await TestServer.admin(
                url, "DROP TABLE sequencer.runs, sequencer.run_jobs, sequencer.attempts, sequencer.fingerprints",
                "ALTER TABLE sequencer.jobs DROP COLUMN ahead, DROP COLUMN lost_ahead",
                "DELETE FROM sequencer.migrations WHERE version >= 2")
            let store = try await PostgresQueueStore(url: url)
            #expect(try await store.job(id[0])?.state == .available)
            let (run, _) = try await store.createRun(NewQueueRun(workflow: "w", origin: "o"), jobs: [("a", Steps.job())], now: 1)
            #expect(try await store.jobs(of: run).map(\.name) == ["a"])
            try await store.close()
        }
    }

    /// Version 5 keeps fingerprints in the journal's encoding: version 4's JSONB objects are
    /// converted in the migration's transaction.
    @Test func aVersion4SchemasFingerprintsAreConvertedToTheOneEncoding() async throws {
        try await TestServer.withDatabase { url in
            let first = try await PostgresQueueStore(url: url)
            try await first.close()
            // Back to version 4: parts and outputs as JSONB.
            try await TestServer.admin(url, Self.backToVersion6)
            try await TestServer.admin(
                url, "ALTER TABLE sequencer.fingerprints DROP COLUMN parts, DROP COLUMN outputs",
                "ALTER TABLE sequencer.fingerprints ADD COLUMN parts JSONB NOT NULL, ADD COLUMN outputs JSONB NOT NULL",
                """
                INSERT INTO sequencer.fingerprints (workflow, job, fingerprint, recorded_at, parts, outputs) VALUES
                    ('app', 'compile', 'f1', 0, '{"input:src/a.c": "h1", "command": "c1"}', '{"out/a.o": "10:20:30"}'),
                    ('app', 'empty', 'f2', 0, '{}', '{}')
                """,
                "DELETE FROM sequencer.migrations WHERE version >= 5")
            let store = try await PostgresQueueStore(url: url)
            let found = try await store.fingerprints(workflow: "app")
            #expect(found["compile"] == Fingerprint(fingerprint: "f1", parts: ["command": "c1", "input:src/a.c": "h1"], outputs: ["out/a.o": "10:20:30"]))
            #expect(found["compile"]?.partsText == "command\tc1\ninput:src/a.c\th1")
            #expect(found["empty"] == Fingerprint(fingerprint: "f2", parts: [:], outputs: [:]))
            try await store.recordFingerprint(Fingerprint(fingerprint: "f3", parts: ["command": "c3"], outputs: [:]), workflow: "app", job: "compile", now: 1)
            #expect(try await store.fingerprints(workflow: "app", jobs: ["compile"])["compile"]?.parts == ["command": "c3"])
            try await store.close()
        }
    }

    /// Version 6 keeps retry policies as the SQLite store does (five numbers): version 5's JSON
    /// objects are converted, and the job claimed afterwards retries as it was told to.
    @Test func aVersion5SchemasRetryPoliciesAreConvertedToTheOneEncoding() async throws {
        try await TestServer.withDatabase { url in
            let first = try await PostgresQueueStore(url: url)
            var job = Steps.job()
            job.retry = StoredRetry(maxAttempts: 5, initialMilliseconds: 1000, multiplier: 2, maximumMilliseconds: 30_000, jitter: 0.1)
            let id = try #require(try await first.enqueue([job], now: 0).first)
            try await first.close()
            // Back to version 5: the policy as JSON.
            try await TestServer.admin(url, Self.backToVersion6)
            try await TestServer.admin(
                url,
                """
                UPDATE sequencer.jobs SET retry = '{"maxAttempts":5,"initialMilliseconds":1000,"multiplier":2,"maximumMilliseconds":30000,"jitter":0.1}'
                WHERE id = \(id.rawValue)
                """,
                "DELETE FROM sequencer.migrations WHERE version >= 6")
            let store = try await PostgresQueueStore(url: url)
            let claimed = try await store.claim(kinds: ["k"], limit: 1, slots: 1, owner: "w", now: 1, leaseUntil: 30_000)
            #expect(claimed.map(\.retry) == [job.retry])
            try await store.close()
        }
    }

    /// What version 8 added, undone: the schema as version 7 left it.
    static let backToVersion7 = [
        "DROP TABLE sequencer.actions",
        "ALTER TABLE sequencer.workers DROP COLUMN kinds",
        "DELETE FROM sequencer.migrations WHERE version >= 8",
    ]

    /// What versions 7 and 8 added, undone: the schema as version 6 left it.
    static let backToVersion6 = backToVersion7 + [
        "DROP TABLE sequencer.workers, sequencer.gauge_reader",
        "DROP INDEX sequencer.jobs_waiting",
        "ALTER TABLE sequencer.jobs DROP COLUMN available_since, DROP COLUMN trace_context",
        "DELETE FROM sequencer.migrations WHERE version >= 7",
    ]

    /// Version 7 adds what operating a queue reads: a version 6 queue's jobs are counted by the
    /// gauges, and a waiting job released after the migration says since when it could run.
    @Test func aVersion6SchemaGainsWorkersAndGauges() async throws {
        try await TestServer.withDatabase { url in
            let first = try await PostgresQueueStore(url: url)
            let need = try #require(try await first.enqueue([Steps.job(at: 10)], now: 10).first)
            let waiting = try #require(try await first.enqueue([Steps.job(needs: [need], at: 20)], now: 20).first)
            try await first.close()
            try await TestServer.admin(url, Self.backToVersion6)
            let store = try await PostgresQueueStore(url: url)
            let gauges = try #require(try await store.readGauges(reader: "r", now: 100, holdUntil: 200))
            #expect(gauges.depth == [QueueGauges.Group(kind: "k", lane: ""): [.available: 1, .waiting: 1]])
            let claimed = try await store.claim(kinds: ["k"], limit: 1, slots: 1, owner: "w", now: 100, leaseUntil: 30_000)
            _ = try await store.finish([AttemptEnd(id: need, attempt: 1, owner: "w", outcome: .succeeded(Data()))], now: 150)
            #expect(claimed.map(\.id) == [need])
            let next = try await store.claim(kinds: ["k"], limit: 1, slots: 1, owner: "w", now: 300, leaseUntil: 30_000)
            #expect(next.map(\.id) == [waiting] && next.first?.availableSince == 150)
            try await store.beat(WorkerBeat(owner: "w", host: "h", pid: 1, startedAt: 0, holding: 1, aliveUntil: 1_000), now: 300)
            #expect(try await store.workers(now: 300).map(\.owner) == ["w"])
            try await store.close()
        }
    }

    /// Version 8 adds what the queue page shows and records: a version 7 queue's worker keeps
    /// its beat, with its kinds from its next beat on, and actions are recorded.
    @Test func aVersion7SchemaGainsWorkersKindsAndActions() async throws {
        try await TestServer.withDatabase { url in
            let first = try await PostgresQueueStore(url: url)
            try await first.close()
            try await TestServer.admin(url, Self.backToVersion7)
            try await TestServer.admin(
                url, "INSERT INTO sequencer.workers (owner, host, pid, started_at, beat_at, holding, alive_until) VALUES ('old', 'h', 1, 0, 5, 0, 1000)")
            let store = try await PostgresQueueStore(url: url)
            #expect(try await store.workers(now: 10).map(\.kinds) == [[]])
            try await store.beat(WorkerBeat(owner: "old", host: "h", pid: 1, startedAt: 0, holding: 0, aliveUntil: 2_000, kinds: ["k"]), now: 20)
            #expect(try await store.workers(now: 30).map(\.kinds) == [["k"]])
            let action = QueueAction(at: 40, action: "cancel", job: DurableJobID(1), who: "ops", address: "127.0.0.1:1", result: "done")
            try await store.record(action)
            #expect(try await store.actions(limit: 5) == [action])
            try await store.close()
        }
    }

    @Test func aNotificationWakesAListenerInAnotherProcess() async throws {
        try await StoreKind.postgres.withSteps { steps in
            let listener = try await steps.reopen()
            let wakeUps = try #require(listener.wakeUps())
            var iterator = wakeUps.makeAsyncIterator()
            // The first element: listening has started.
            #expect(await iterator.next() != nil)
            _ = try await steps.enqueue(Steps.job())
            #expect(await iterator.next() != nil, "woken by the enqueue's commit")
        }
    }

    @Test func aWrongPasswordOrServerOrAMissingPermissionIsAClearErrorWithThePasswordMasked() async throws {
        let server = try await TestServer.url.value
        var wrong = try #require(URLComponents(string: server))
        wrong.password = "not-the-password"
        let refused = await #expect(throws: QueueError.self) { try await PostgresQueueStore(url: try #require(wrong.string)) }
        #expect(refused?.description.contains("password authentication failed") == true, "\(String(describing: refused))")
        #expect(refused?.location.contains(":***@") == true && refused?.description.contains("not-the-password") == false)

        var closed = wrong
        closed.port = 1
        let unreachable = await #expect(throws: QueueError.self) { try await PostgresQueueStore(url: try #require(closed.string)) }
        #expect(unreachable?.message.contains("cannot connect") == true, "\(String(describing: unreachable))")

        let malformed = await #expect(throws: QueueError.self) { try await PostgresQueueStore(url: "mysql://me@host/db") }
        #expect(malformed?.code == .invalidOption)

        let role = "limited_\(UUID().uuidString.prefix(8).lowercased())"
        try await TestServer.admin(server, "CREATE ROLE \(role) LOGIN PASSWORD 'limited'")
        try await TestServer.withDatabase { url in
            var limited = try #require(URLComponents(string: url))
            limited.user = role
            limited.password = "limited"
            let denied = await #expect(throws: QueueError.self) { try await PostgresQueueStore(url: try #require(limited.string)) }
            #expect(denied?.message.contains("permission denied") == true, "\(String(describing: denied))")
        }
        try await TestServer.admin(server, "DROP ROLE \(role)")
    }
}
