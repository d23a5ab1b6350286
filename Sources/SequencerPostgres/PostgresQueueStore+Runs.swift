public import Foundation
internal import Logging
internal import PostgresNIO
import Sequencer
public import SequencerQueue
public import SequencerHistory

/// Runs (``RunStore``) in PostgreSQL: the tables `runs`, `run_jobs` and `attempts` of schema
/// version 2, read and written by any process on any machine.
extension PostgresQueueStore: RunStore {
    public func createRun(_ run: NewQueueRun, jobs: [(name: String, job: NewDurableJob)], now: Int64) async throws -> (
        QueueRunID, [DurableJobID]
    ) {
        let location = description
        return try await transaction("creating a run of '\(run.workflow)'") { connection, logger in
            let inserted = try await connection.rows(
                "INSERT INTO sequencer.runs (workflow, origin, info, created_at) VALUES (\(run.workflow), \(run.origin), \(run.info), \(now)) RETURNING id",
                logger)
            guard let runID = try inserted.first?.decode(Int64.self) else {
                throw QueueError(code: .database, location: location, message: "creating a run of '\(run.workflow)' returned no ID")
            }
            let names = jobs.map(\.name)
            if let twice = Dictionary(grouping: names, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
                throw QueueError(code: .invalidOption, location: location, message: "run of '\(run.workflow)': job '\(twice)' is given twice")
            }
            let (ids, available) = try await Self.insertAll(jobs.map(\.job), now: now, location: location, connection, logger)
            // One statement for the names; a job given by its key that already belongs to
            // another run breaks `job`'s uniqueness.
            let claimedElsewhere = try await connection.rows(
                """
                INSERT INTO sequencer.run_jobs (run, name, job)
                SELECT \(runID), name, job FROM unnest(\(names)::text[], \(ids.map(\.rawValue))::bigint[]) AS given(name, job)
                ON CONFLICT (job) DO NOTHING
                RETURNING job
                """, logger)
            if claimedElsewhere.count != jobs.count {
                throw QueueError(
                    code: .invalidOption, location: location,
                    message: "run of '\(run.workflow)': a job's key belongs to a live job of another run")
            }
            if available { try await Self.notify(connection, logger) }
            return (QueueRunID(runID), ids)
        }
    }

    public func runs(workflow: String?, before: QueueRunID?, limit: Int?) async throws -> [QueueRun] {
        try await Self.runs(
            in: self,
            where: """
                (\(workflow)::text IS NULL OR workflow = \(workflow)) AND id < \(before?.rawValue ?? Int64.max)
                ORDER BY id DESC LIMIT \(limit.map(Int64.init))
                """)
    }

    public func runCount(workflow: String?) async throws -> Int {
        let rows = try await rows(
            "counting runs", "SELECT count(*) FROM sequencer.runs WHERE \(workflow)::text IS NULL OR workflow = \(workflow)")
        return try rows.first?.decode(Int.self) ?? 0
    }

    public func workflows() async throws -> [String] {
        try await rows("reading the workflows", "SELECT workflow FROM sequencer.runs GROUP BY workflow ORDER BY workflow COLLATE \"C\"").map { try $0.decode(String.self) }
    }

    public func run(_ id: QueueRunID) async throws -> QueueRun? {
        try await Self.runs(in: self, where: "id = \(id.rawValue)").first
    }

    public func jobs(of run: QueueRunID) async throws -> [QueueRunJob] {
        let rows = try await rows(
            "reading the jobs of run \(run)",
            """
            SELECT \(unescaped: Self.qualifiedColumns), jobs.output, run_jobs.name
            FROM sequencer.run_jobs JOIN sequencer.jobs ON jobs.id = run_jobs.job
            WHERE run_jobs.run = \(run.rawValue) ORDER BY jobs.id
            """)
        return try rows.map { row in
            let cells = row.makeRandomAccess()
            let name = try cells[cells.count - 1].decode(String.self)
            return QueueRunJob(name: name, job: try Self.job(row))
        }
    }

    public func recordAttempt(_ attempt: QueueAttempt) async throws {
        _ = try await rows(
            "recording attempt \(attempt.attempt) of job \(attempt.job)",
            """
            INSERT INTO sequencer.attempts (job, attempt, worker, started_at, ended_at, outcome, exit_code, signal, summary, output)
            VALUES (\(attempt.job.rawValue), \(attempt.attempt), \(attempt.worker), \(attempt.startedAt), \(attempt.endedAt),
                    \(attempt.outcome), \(attempt.exitCode), \(attempt.signal), \(attempt.summary), \(attempt.output))
            ON CONFLICT (job, attempt, worker) DO UPDATE SET
                started_at = excluded.started_at, ended_at = excluded.ended_at, outcome = excluded.outcome,
                exit_code = excluded.exit_code, signal = excluded.signal, summary = excluded.summary, output = excluded.output
            """)
    }

    public func attempts(of run: QueueRunID) async throws -> [QueueAttempt] {
        let rows = try await rows(
            "reading the attempts of run \(run)",
            """
            SELECT attempts.job, attempt, worker, started_at, ended_at, outcome, exit_code, signal, summary
            FROM sequencer.attempts JOIN sequencer.run_jobs ON run_jobs.job = attempts.job WHERE run_jobs.run = \(run.rawValue)
            ORDER BY started_at, attempts.job, attempt
            """)
        return try rows.map { row in
            let cells = try row.decode((Int64, Int, String, Int64, Int64, String, Int?, Int?, String).self)
            return QueueAttempt(
                job: DurableJobID(cells.0), attempt: cells.1, worker: cells.2, startedAt: cells.3, endedAt: cells.4, outcome: cells.5,
                exitCode: cells.6, signal: cells.7, summary: cells.8, output: nil)
        }
    }

    public func output(of job: DurableJobID, attempt: Int?) async throws -> Data? {
        let rows = try await rows(
            "reading the output of job \(job)",
            """
            SELECT output FROM sequencer.attempts WHERE job = \(job.rawValue) AND (\(attempt)::integer IS NULL OR attempt = \(attempt))
            ORDER BY attempt DESC, ended_at DESC LIMIT 1
            """)
        return try rows.first?.decode(Data?.self)
    }

    /// Cancels the run's live jobs one by one in submission order, in one transaction, so that a
    /// job skipped by an earlier one's cancel is passed by (as on SQLite); running jobs hear it
    /// at their worker's next heartbeat.
    public func cancelRun(_ id: QueueRunID, now: Int64) async throws -> Int {
        try await transaction("cancelling run \(id)") { connection, logger in
            try await connection.rows(
                "UPDATE sequencer.runs SET cancelled_at = coalesce(cancelled_at, \(now)) WHERE id = \(id.rawValue)", logger)
            let live = try await connection.rows(
                """
                SELECT run_jobs.job FROM sequencer.run_jobs JOIN sequencer.jobs ON jobs.id = run_jobs.job
                WHERE run_jobs.run = \(id.rawValue) AND \(unescaped: "jobs." + SQLState.isLive) ORDER BY run_jobs.job
                """, logger)
            var cancelled = 0
            for row in live {
                let state = try await Self.cancel(DurableJobID(try row.decode(Int64.self)), now: now, connection, logger)
                if state == .cancelled || state == .running { cancelled += 1 }
            }
            return cancelled
        }
    }

    public func deleteRuns(keeping: Int, workflow: String?) async throws -> [QueueRun] {
        try await transaction("deleting old runs") { connection, logger in
            let all = try await Self.runs(
                on: connection, logger, where: "(\(workflow)::text IS NULL OR workflow = \(workflow)) ORDER BY id DESC FOR UPDATE")
            var kept: [String: Int] = [:]
            var deleted: [QueueRun] = []
            for run in all {
                kept[run.workflow, default: 0] += 1
                guard kept[run.workflow, default: 0] > keeping, run.state != .running else { continue }
                deleted.append(run)
            }
            guard !deleted.isEmpty else { return [] }
            let ids = deleted.map(\.id.rawValue)
            try await connection.rows(
                """
                WITH gone AS (DELETE FROM sequencer.run_jobs WHERE run = ANY(\(ids)) RETURNING job),
                attempts AS (DELETE FROM sequencer.attempts USING gone WHERE attempts.job = gone.job),
                needs AS (DELETE FROM sequencer.needs USING gone WHERE needs.need = gone.job OR needs.job = gone.job)
                DELETE FROM sequencer.jobs USING gone WHERE jobs.id = gone.job
                """, logger)
            try await connection.rows("DELETE FROM sequencer.runs WHERE id = ANY(\(ids))", logger)
            return deleted
        }
    }

    public func fingerprints(workflow: String, jobs: [String]?) async throws -> [String: Fingerprint] {
        var fingerprints: [String: Fingerprint] = [:]
        let doing = "reading the fingerprints of '\(workflow)'"
        let select = "SELECT job, fingerprint, parts, outputs FROM sequencer.fingerprints"
        let rows: [PostgresRow]
        if let jobs {
            rows = try await self.rows(doing, "\(unescaped: select) WHERE workflow = \(workflow) AND job = ANY(\(jobs))")
        } else {
            rows = try await self.rows(doing, "\(unescaped: select) WHERE workflow = \(workflow)")
        }
        for row in rows {
            let (job, fingerprint, parts, outputs) = try row.decode((String, String, String, String).self)
            fingerprints[job] = Fingerprint(fingerprint: fingerprint, partsText: parts, outputsText: outputs)
        }
        return fingerprints
    }

    public func recordFingerprint(_ fingerprint: Fingerprint, workflow: String, job: String, now: Int64) async throws {
        _ = try await rows(
            "recording the fingerprint of '\(job)'",
            """
            INSERT INTO sequencer.fingerprints (workflow, job, fingerprint, parts, outputs, recorded_at)
            VALUES (\(workflow), \(job), \(fingerprint.fingerprint), \(fingerprint.partsText), \(fingerprint.outputsText), \(now))
            ON CONFLICT (workflow, job) DO UPDATE SET
                fingerprint = excluded.fingerprint, parts = excluded.parts, outputs = excluded.outputs, recorded_at = excluded.recorded_at
            """)
    }

    // MARK: - Reading runs

    /// ``columns`` of `jobs` joined to `run_jobs`.
    static let qualifiedColumns = columns.split(separator: ",").map { "jobs." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        .joined(separator: ", ")

    static func runs(in store: PostgresQueueStore, where condition: PostgresQuery) async throws -> [QueueRun] {
        try await store.transaction("reading runs") { connection, logger in try await runs(on: connection, logger, where: condition) }
    }

    /// The runs that `condition` selects, in its order, each with its jobs counted by state:
    /// two statements, whatever the number of runs.
    static func runs(on connection: PostgresConnection, _ logger: Logger, where condition: PostgresQuery) async throws -> [QueueRun] {
        var query: PostgresQuery = "SELECT id, workflow, origin, info, created_at, cancelled_at FROM sequencer.runs WHERE "
        query.sql += condition.sql
        query.binds = condition.binds
        let rows = try await connection.rows(query, logger).map { try $0.decode((Int64, String, String, String?, Int64, Int64?).self) }
        guard !rows.isEmpty else { return [] }
        var groups: [Int64: [(state: DurableJobState, detail: Int, count: Int, lastEnded: Int64?)]] = [:]
        var counting = PostgresQuery(unsafeSQL: QueueRun.countsByState(prefix: "sequencer.") + " WHERE run = ANY($1) GROUP BY run, state, detail")
        counting.binds.append(rows.map(\.0))
        for row in try await connection.rows(counting, logger) {
            let (run, raw, detail, count, ended) = try row.decode((Int64, Int, Int, Int, Int64?).self)
            guard let state = DurableJobState(rawValue: raw) else { continue }
            groups[run, default: []].append((state, detail, count, ended))
        }
        return rows.map { row in
            QueueRun(
                id: QueueRunID(row.0), workflow: row.1, origin: row.2, info: row.3, createdAt: row.4, cancelledAt: row.5,
                groups: groups[row.0] ?? [])
        }
    }
}
