import Foundation
internal import GRDB
public import SequencerQueue

/// Workers' beats and the gauges (see ``QueueStore/readGauges(reader:now:holdUntil:)``), in
/// the `workers` and `gauge_reader` tables of schema version 7.
extension SQLiteQueueStore {
    /// How long a beat is kept after it ran out: a worker that died shows as gone for a day.
    static let beatsKept: Int64 = 24 * 3600 * 1000

    public func beat(_ worker: WorkerBeat, now: Int64) async throws {
        try await write { db in
            try db.executeCached(
                sql: """
                    INSERT INTO workers (owner, host, pid, started_at, beat_at, holding, alive_until, kinds) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (owner) DO UPDATE SET beat_at = excluded.beat_at, holding = excluded.holding, alive_until = excluded.alive_until,
                        kinds = excluded.kinds
                    """,
                arguments: [worker.owner, worker.host, worker.pid, worker.startedAt, now, worker.holding, worker.aliveUntil, worker.kindsText])
            try db.executeCached(sql: "DELETE FROM workers WHERE alive_until < ?", arguments: [now - Self.beatsKept])
        }
    }

    public func workerStopped(_ owner: String) async throws {
        try await write { db in try db.execute(sql: "DELETE FROM workers WHERE owner = ?", arguments: [owner]) }
    }

    public func workers(now: Int64) async throws -> [WorkerBeat] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT owner, host, pid, started_at, holding, alive_until, kinds, beat_at FROM workers WHERE alive_until >= ? ORDER BY started_at, owner",
                arguments: [now]
            ).map { row in
                WorkerBeat(
                    owner: row[0], host: row[1], pid: Int32(clamping: row[2] as Int64), startedAt: row[3], holding: row[4],
                    aliveUntil: row[5], kinds: WorkerBeat.kinds(row[6]), beatAt: row[7])
            }
        }
    }

    /// The hold and the counts in one write transaction, which SQLite runs one at a time.
    public func readGauges(reader: String, now: Int64, holdUntil: Int64) async throws -> QueueGauges? {
        try await write { db in
            try db.executeCached(
                sql: "UPDATE gauge_reader SET reader = ?, held_until = ? WHERE reader = ? OR held_until <= ?",
                arguments: [reader, holdUntil, reader, now])
            guard db.changesCount == 1 else { return nil }
            return try Self.gauges(now: now, db)
        }
    }

    public func releaseGauges(reader: String) async throws {
        try await write { db in try db.execute(sql: "UPDATE gauge_reader SET held_until = 0 WHERE reader = ?", arguments: [reader]) }
    }

    public func gauges(now: Int64) async throws -> QueueGauges {
        try await read { db in try Self.gauges(now: now, db) }
    }

    /// The live jobs' counts from the partial indexes of their states, and the workers alive.
    static func gauges(now: Int64, _ db: Database) throws -> QueueGauges {
        var gauges = QueueGauges()
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT kind, coalesce(lane, ''), state, run_at > ?, count(*),
                    min(CASE WHEN state = 1 AND run_at <= ? THEN max(run_at, enqueued_at, coalesce(available_since, 0)) END)
                FROM (
                    SELECT kind, lane, state, run_at, enqueued_at, available_since FROM jobs INDEXED BY jobs_waiting WHERE state = 0
                    UNION ALL
                    SELECT kind, lane, state, run_at, enqueued_at, available_since FROM jobs INDEXED BY jobs_run_at WHERE state = 1
                    UNION ALL
                    SELECT kind, lane, state, run_at, enqueued_at, available_since FROM jobs INDEXED BY jobs_owner WHERE state = 2
                )
                GROUP BY 1, 2, 3, 4
                """,
            arguments: [now, now])
        for row in rows {
            gauges.add(kind: row[0], lane: row[1], stored: row[2], later: row[3], count: row[4], since: row[5])
        }
        gauges.workersAlive = try Int.fetchOne(db, sql: "SELECT count(*) FROM workers WHERE alive_until >= ?", arguments: [now]) ?? 0
        return gauges
    }
}
