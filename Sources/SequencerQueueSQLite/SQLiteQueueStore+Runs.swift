public import Foundation
public import SequencerHistory
internal import GRDB

/// Runs (``RunStore``) in the SQLite file: the `runs`, `run_jobs` and `attempts` tables of
/// schema version 2.
extension SQLiteQueueStore: RunStore {
    public func createRun(_ run: NewQueueRun, jobs: [(name: String, job: NewDurableJob)], now: Int64) async throws -> (
        QueueRunID, [DurableJobID]
    ) {
        let path = path
        return try await write { db in
            try db.execute(
                sql: "INSERT INTO runs (workflow, origin, info, created_at) VALUES (?, ?, ?, ?)",
                arguments: [run.workflow, run.origin, run.info, now])
            let runID = db.lastInsertedRowID
            var ids: [DurableJobID] = []
            ids.reserveCapacity(jobs.count)
            for (position, entry) in jobs.enumerated() {
                let id = try Self.insert(entry.job.resolvingBatchNeeds(ids, position: position, location: path), now: now, path: path, db)
                ids.append(id)
                do {
                    try db.executeCached(sql: "INSERT INTO run_jobs (run, name, job) VALUES (?, ?, ?)", arguments: [runID, entry.name, id.rawValue])
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw QueueError(
                        code: .invalidOption, location: path,
                        message: "run of '\(run.workflow)': job '\(entry.name)' is given twice, or its key belongs to a job of another run")
                }
            }
            return (QueueRunID(runID), ids)
        }
    }

    public func runs(workflow: String?, before: QueueRunID?, limit: Int?) async throws -> [QueueRun] {
        try await read { db in
            try Self.runs(
                where: "(?1 IS NULL OR workflow = ?1) AND id < ?3 ORDER BY id DESC LIMIT ?2",
                arguments: [workflow, limit ?? -1, before?.rawValue ?? Int64.max], db)
        }
    }

    public func runCount(workflow: String?) async throws -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM runs WHERE ?1 IS NULL OR workflow = ?1", arguments: [workflow]) ?? 0
        }
    }

    public func workflows() async throws -> [String] {
        try await read { db in try String.fetchAll(db, sql: "SELECT DISTINCT workflow FROM runs ORDER BY workflow") }
    }

    public func run(_ id: QueueRunID) async throws -> QueueRun? {
        try await read { db in try Self.runs(where: "id = ?", arguments: [id.rawValue], db).first }
    }

    /// The job columns that ``job(_:)`` reads, of `jobs` joined to `run_jobs`.
    private static let runJobColumns = columns.split(separator: ",").map { "jobs.\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }
        .joined(separator: ", ")

    public func jobs(of run: QueueRunID) async throws -> [QueueRunJob] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.runJobColumns), jobs.output, run_jobs.name FROM run_jobs JOIN jobs ON jobs.id = run_jobs.job
                    WHERE run_jobs.run = ? ORDER BY jobs.id
                    """,
                arguments: [run.rawValue]
            ).map { QueueRunJob(name: $0[17], job: Self.job($0)) }
        }
    }

    public func recordAttempt(_ attempt: QueueAttempt) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO attempts (job, attempt, worker, started_at, ended_at, outcome, exit_code, signal, summary, output)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    attempt.job.rawValue, attempt.attempt, attempt.worker, attempt.startedAt, attempt.endedAt, attempt.outcome,
                    attempt.exitCode, attempt.signal, attempt.summary, attempt.output,
                ])
        }
    }

    public func attempts(of run: QueueRunID) async throws -> [QueueAttempt] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT attempts.job, attempt, worker, started_at, ended_at, outcome, exit_code, signal, summary
                    FROM attempts JOIN run_jobs ON run_jobs.job = attempts.job WHERE run_jobs.run = ?
                    ORDER BY started_at, attempts.job, attempt
                    """,
                arguments: [run.rawValue]
            ).map { row in
                QueueAttempt(
                    job: DurableJobID(row[0]), attempt: row[1], worker: row[2], startedAt: row[3], endedAt: row[4], outcome: row[5],
                    exitCode: row[6], signal: row[7], summary: row[8], output: nil)
            }
        }
    }

    public func output(of job: DurableJobID, attempt: Int?) async throws -> Data? {
        try await read { db in
            try Data.fetchOne(
                db,
                sql: "SELECT output FROM attempts WHERE job = ?1 AND (?2 IS NULL OR attempt = ?2) ORDER BY attempt DESC, ended_at DESC LIMIT 1",
                arguments: [job.rawValue, attempt])
        }
    }

    public func cancelRun(_ id: QueueRunID, now: Int64) async throws -> Int {
        try await write { db in
            try db.execute(sql: "UPDATE runs SET cancelled_at = coalesce(cancelled_at, ?) WHERE id = ?", arguments: [now, id.rawValue])
            let live = try Int64.fetchAll(
                db, sql: "SELECT job FROM run_jobs JOIN jobs ON jobs.id = run_jobs.job WHERE run = ? AND jobs.\(SQLState.isLive) ORDER BY job",
                arguments: [id.rawValue])
            var cancelled = 0
            // A job skipped by an earlier one's cancel is no longer live: cancel passes it by.
            for job in live where [.cancelled, .running].contains(try Self.cancel(job, now: now, db)) { cancelled += 1 }
            return cancelled
        }
    }

    public func deleteRuns(keeping: Int, workflow: String?) async throws -> [QueueRun] {
        try await write { db in
            var kept: [String: Int] = [:]
            var deleted: [QueueRun] = []
            for run in try Self.runs(where: "?1 IS NULL OR workflow = ?1 ORDER BY id DESC", arguments: [workflow], db) {
                kept[run.workflow, default: 0] += 1
                guard kept[run.workflow, default: 0] > keeping, run.state != .running else { continue }
                let jobs = "SELECT job FROM run_jobs WHERE run = ?"
                try db.execute(sql: "DELETE FROM attempts WHERE job IN (\(jobs))", arguments: [run.id.rawValue])
                try db.execute(sql: "DELETE FROM needs WHERE need IN (\(jobs)) OR job IN (\(jobs))", arguments: [run.id.rawValue, run.id.rawValue])
                try db.execute(sql: "DELETE FROM jobs WHERE id IN (\(jobs))", arguments: [run.id.rawValue])
                try db.execute(sql: "DELETE FROM run_jobs WHERE run = ?", arguments: [run.id.rawValue])
                try db.execute(sql: "DELETE FROM runs WHERE id = ?", arguments: [run.id.rawValue])
                deleted.append(run)
            }
            return deleted
        }
    }

    public func fingerprints(workflow: String, jobs: [String]?) async throws -> [String: Fingerprint] {
        // The names as one JSON array: one argument, however many jobs.
        let names = try jobs.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        return try await read { db in
            var found: [String: Fingerprint] = [:]
            let sql = "SELECT job, fingerprint, parts, outputs FROM fingerprints WHERE workflow = ?"
            let rows = try names.map {
                try Row.fetchAll(db, sql: sql + " AND job IN (SELECT value FROM json_each(?))", arguments: [workflow, $0])
            } ?? Row.fetchAll(db, sql: sql, arguments: [workflow])
            for row in rows {
                found[row[0]] = Fingerprint(fingerprint: row[1], partsText: row[2], outputsText: row[3])
            }
            return found
        }
    }

    public func recordFingerprint(_ fingerprint: Fingerprint, workflow: String, job: String, now: Int64) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO fingerprints (workflow, job, fingerprint, parts, outputs, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [workflow, job, fingerprint.fingerprint, fingerprint.partsText, fingerprint.outputsText, now])
        }
    }

    /// The runs that `condition` selects from `runs`, in its order, each with its jobs counted
    /// by state: two statements, whatever the number of runs.
    static func runs(where condition: String, arguments: StatementArguments, _ db: Database) throws -> [QueueRun] {
        let rows = try Row.fetchAll(db, sql: "SELECT id, workflow, origin, info, created_at, cancelled_at FROM runs WHERE " + condition, arguments: arguments)
        guard !rows.isEmpty else { return [] }
        let ids = rows.map { $0[0] as Int64 }
        var groups: [Int64: [(state: DurableJobState, detail: Int, count: Int, lastEnded: Int64?)]] = [:]
        for group in try Row.fetchAll(
            db,
            sql: QueueRun.countsByState(prefix: "") + " WHERE run IN (SELECT value FROM json_each(?)) GROUP BY run, state, detail",
            arguments: [Self.jsonArray(ids)])
        {
            guard let state = DurableJobState(rawValue: group[1]) else { continue }
            groups[group[0], default: []].append((state, group[2], group[3], group[4]))
        }
        return rows.map { row in
            QueueRun(
                id: QueueRunID(row[0]), workflow: row[1], origin: row[2], info: row[3], createdAt: row[4], cancelledAt: row[5],
                groups: groups[row[0]] ?? [])
        }
    }
}
