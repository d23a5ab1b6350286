import Foundation
internal import PostgresNIO
public import SequencerQueue

/// What the queue page reads and does (``SequencerQueue/QueueConsole``), in the `jobs` and
/// `actions` tables. An action locks its job's row first (`FOR UPDATE`): of two pages that act
/// on one job at once, the second sees the first's result.
extension PostgresQueueStore: QueueConsole {
    public func endings(since: Int64, bucket: Int64) async throws -> [QueueEndings] {
        let bucket = max(1, bucket)
        let rows = try await rows(
            "counting the jobs that ended",
            """
            SELECT (ended_at - \(since)) / \(bucket), state, count(*)::bigint FROM sequencer.jobs
            WHERE state >= \(unescaped: SQLState.succeeded) AND ended_at >= \(since) GROUP BY 1, 2 ORDER BY 1
            """)
        return QueueEndings.grouped(try rows.map { row in
            let (index, state, count) = try row.decode((Int64, Int, Int64).self)
            return (since + index * bucket, state, Int(count))
        })
    }

    public func latestJobs(in states: [DurableJobState], before: DurableJobID?, limit: Int) async throws -> [DurableJob] {
        guard !states.isEmpty else { return [] }
        let rows = try await rows(
            "listing jobs",
            """
            SELECT \(unescaped: Self.columns), NULL::bytea FROM sequencer.jobs
            WHERE state = ANY(\(states.map(\.rawValue))) AND id < \(before?.rawValue ?? Int64.max) ORDER BY id DESC LIMIT \(limit)
            """)
        return try rows.map(Self.job)
    }

    public func retry(_ id: DurableJobID, now: Int64) async throws -> String? {
        try await transaction("retrying a job") { connection, logger in
            let rows = try await connection.rows("SELECT state, key FROM sequencer.jobs WHERE id = \(id.rawValue) FOR UPDATE", logger)
            let row = try rows.first?.decode((Int, String?).self)
            if let refused = ConsoleRefusal.retry(id, state: row?.0) { return refused }
            if let key = row?.1 {
                let live = try await connection.rows(
                    "SELECT id FROM sequencer.jobs WHERE key = \(key) AND state <= \(unescaped: SQLState.running)", logger)
                if let refused = ConsoleRefusal.retry(id, key: key, heldBy: try live.first?.decode(Int64.self)) { return refused }
            }
            try await connection.rows(
                """
                UPDATE sequencer.jobs SET state = \(unescaped: SQLState.available), run_at = \(now), available_since = \(now), crashes = 0,
                    ahead = false, lost_ahead = false, owner = NULL, lease_until = NULL, cancel_requested = false, output = NULL,
                    error_code = NULL, error = NULL, cause = NULL, ended_at = NULL
                WHERE id = \(id.rawValue)
                """, logger)
            try await Self.notify(connection, logger)
            return nil
        }
    }

    public func discard(_ id: DurableJobID) async throws -> String? {
        try await transaction("discarding a job") { connection, logger in
            let rows = try await connection.rows("SELECT state FROM sequencer.jobs WHERE id = \(id.rawValue) FOR UPDATE", logger)
            if let refused = ConsoleRefusal.discard(id, state: try rows.first?.decode(Int.self)) { return refused }
            let runs = try await connection.rows("SELECT run FROM sequencer.run_jobs WHERE job = \(id.rawValue)", logger)
            if let refused = ConsoleRefusal.discard(id, run: try runs.first?.decode(Int64.self)) { return refused }
            try await connection.rows("DELETE FROM sequencer.needs WHERE need = \(id.rawValue) OR job = \(id.rawValue)", logger)
            try await connection.rows("DELETE FROM sequencer.jobs WHERE id = \(id.rawValue)", logger)
            return nil
        }
    }

    public func record(_ action: QueueAction) async throws {
        _ = try await rows(
            "recording an action",
            """
            INSERT INTO sequencer.actions (at, action, job, who, address, result)
            VALUES (\(action.at), \(action.action), \(action.job?.rawValue), \(action.who), \(action.address), \(action.result))
            """)
    }

    public func actions(limit: Int) async throws -> [QueueAction] {
        try await rows("listing actions", "SELECT at, action, job, who, address, result FROM sequencer.actions ORDER BY id DESC LIMIT \(limit)")
            .map { row in
                let (at, action, job, who, address, result) = try row.decode((Int64, String, Int64?, String, String, String).self)
                return QueueAction(at: at, action: action, job: job.map(DurableJobID.init), who: who, address: address, result: result)
            }
    }
}
