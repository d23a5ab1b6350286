import Foundation
internal import PostgresNIO
import Sequencer
public import SequencerQueue

/// Workers' beats and the gauges (see ``QueueStore/readGauges(reader:now:holdUntil:)``).
extension PostgresQueueStore {
    /// How long a beat is kept after it ran out: a worker that died shows as gone, not
    /// forgotten, for a day.
    static let beatsKept: Int64 = 24 * 3600 * 1000

    public func beat(_ worker: WorkerBeat, now: Int64) async throws {
        try await transaction("recording a worker's beat") { connection, logger in
            try await connection.rows(
                """
                INSERT INTO sequencer.workers (owner, host, pid, started_at, beat_at, holding, alive_until, kinds)
                VALUES (\(worker.owner), \(worker.host), \(Int(worker.pid)), \(worker.startedAt), \(now), \(worker.holding), \(worker.aliveUntil),
                    \(worker.kindsText))
                ON CONFLICT (owner) DO UPDATE SET beat_at = excluded.beat_at, holding = excluded.holding, alive_until = excluded.alive_until,
                    kinds = excluded.kinds
                """, logger)
            try await connection.rows("DELETE FROM sequencer.workers WHERE alive_until < \(now - Self.beatsKept)", logger)
        }
    }

    public func workerStopped(_ owner: String) async throws {
        _ = try await rows("removing a worker's beat", "DELETE FROM sequencer.workers WHERE owner = \(owner)")
    }

    public func workers(now: Int64) async throws -> [WorkerBeat] {
        try await rows(
            "listing workers",
            """
            SELECT owner, host, pid, started_at, holding, alive_until, kinds, beat_at FROM sequencer.workers
            WHERE alive_until >= \(now) ORDER BY started_at, owner
            """
        ).map { row in
            let (owner, host, pid, startedAt, holding, aliveUntil, kinds, beatAt) = try row.decode(
                (String, String, Int, Int64, Int, Int64, String, Int64).self)
            return WorkerBeat(
                owner: owner, host: host, pid: Int32(clamping: pid), startedAt: startedAt, holding: holding, aliveUntil: aliveUntil,
                kinds: WorkerBeat.kinds(kinds), beatAt: beatAt)
        }
    }

    /// The hold is taken by one UPDATE of the one row, which PostgreSQL runs one at a time: of
    /// two processes that ask at once, the second sees the first's hold and gets nothing. The
    /// counts then come from the partial indexes of the live states, in the same transaction.
    public func readGauges(reader: String, now: Int64, holdUntil: Int64) async throws -> QueueGauges? {
        try await transaction("reading the gauges") { connection, logger in
            let held = try await connection.rows(
                """
                UPDATE sequencer.gauge_reader SET reader = \(reader), held_until = \(holdUntil)
                WHERE reader = \(reader) OR held_until <= \(now) RETURNING reader
                """, logger)
            guard !held.isEmpty else { return nil }
            return try await Self.gauges(now: now, connection, logger)
        }
    }

    public func releaseGauges(reader: String) async throws {
        _ = try await rows("giving up the gauges", "UPDATE sequencer.gauge_reader SET held_until = 0 WHERE reader = \(reader)")
    }

    public func gauges(now: Int64) async throws -> QueueGauges {
        try await transaction("reading the gauges") { connection, logger in try await Self.gauges(now: now, connection, logger) }
    }

    /// The live jobs' counts from the partial indexes of their states, and the workers alive.
    static func gauges(now: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> QueueGauges {
        var gauges = QueueGauges()
        let rows = try await connection.rows(
            """
            SELECT kind, coalesce(lane, ''), state, run_at > \(now), count(*),
                min(greatest(run_at, enqueued_at, available_since)) FILTER (WHERE state = \(unescaped: SQLState.available) AND run_at <= \(now))
            FROM (
                SELECT kind, lane, state, run_at, enqueued_at, available_since FROM sequencer.jobs WHERE state = \(unescaped: SQLState.waiting)
                UNION ALL
                SELECT kind, lane, state, run_at, enqueued_at, available_since FROM sequencer.jobs WHERE state = \(unescaped: SQLState.available)
                UNION ALL
                SELECT kind, lane, state, run_at, enqueued_at, available_since FROM sequencer.jobs WHERE state = \(unescaped: SQLState.running)
            ) AS live
            GROUP BY 1, 2, 3, 4
            """, logger)
        for row in rows {
            let (kind, lane, raw, later, count, since) = try row.decode((String, String, Int, Bool, Int, Int64?).self)
            gauges.add(kind: kind, lane: lane, stored: raw, later: later, count: count, since: since)
        }
        let workers = try await connection.rows("SELECT count(*) FROM sequencer.workers WHERE alive_until >= \(now)", logger)
        gauges.workersAlive = try workers.first?.decode(Int.self) ?? 0
        return gauges
    }
}
