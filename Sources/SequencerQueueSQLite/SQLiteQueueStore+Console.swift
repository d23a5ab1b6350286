import Foundation
internal import GRDB
public import SequencerQueue

/// What the queue page reads and does (``QueueConsole``), in the `jobs` and `actions` tables.
extension SQLiteQueueStore: QueueConsole {
    public func endings(since: Int64, bucket: Int64) async throws -> [QueueEndings] {
        let bucket = max(1, bucket)
        return try await read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT (ended_at - ?) / ?, state, count(*) FROM jobs INDEXED BY jobs_ended
                    WHERE \(SQLState.hasEnded) AND ended_at >= ? GROUP BY 1, 2 ORDER BY 1
                    """,
                arguments: [since, bucket, since])
            return QueueEndings.grouped(rows.map { (since + ($0[0] as Int64) * bucket, $0[1], $0[2]) })
        }
    }

    public func latestJobs(in states: [DurableJobState], before: DurableJobID?, limit: Int) async throws -> [DurableJob] {
        guard !states.isEmpty else { return [] }
        let list = states.map { String($0.rawValue) }.joined(separator: ",")
        return try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.columns), NULL FROM jobs WHERE state IN (\(list)) AND id < ? ORDER BY id DESC LIMIT ?",
                arguments: [before?.rawValue ?? Int64.max, limit]
            ).map(Self.job)
        }
    }

    public func retry(_ id: DurableJobID, now: Int64) async throws -> String? {
        try await write { db in
            let row = try Row.fetchOne(db, sql: "SELECT state, key FROM jobs WHERE id = ?", arguments: [id.rawValue])
            if let refused = ConsoleRefusal.retry(id, state: row?[0] as Int?) { return refused }
            if let key = row?[1] as String? {
                let live = try Int64.fetchOne(db, sql: "SELECT id FROM jobs WHERE key = ? AND \(SQLState.isLive)", arguments: [key])
                if let refused = ConsoleRefusal.retry(id, key: key, heldBy: live) { return refused }
            }
            try db.execute(
                sql: """
                    UPDATE jobs SET state = \(SQLState.available), run_at = ?, available_since = ?, crashes = 0, ahead = 0,
                        lost_ahead = 0, owner = NULL, lease_until = NULL, cancel_requested = 0, output = NULL, error_code = NULL,
                        error = NULL, cause = NULL, ended_at = NULL
                    WHERE id = ? AND state = \(SQLState.failed)
                    """,
                arguments: [now, now, id.rawValue])
            return nil
        }
    }

    public func discard(_ id: DurableJobID) async throws -> String? {
        try await write { db in
            let raw = try Int.fetchOne(db, sql: "SELECT state FROM jobs WHERE id = ?", arguments: [id.rawValue])
            if let refused = ConsoleRefusal.discard(id, state: raw) { return refused }
            let run = try Int64.fetchOne(db, sql: "SELECT run FROM run_jobs WHERE job = ?", arguments: [id.rawValue])
            if let refused = ConsoleRefusal.discard(id, run: run) { return refused }
            try db.execute(sql: "DELETE FROM needs WHERE need = ? OR job = ?", arguments: [id.rawValue, id.rawValue])
            try db.execute(sql: "DELETE FROM jobs WHERE id = ?", arguments: [id.rawValue])
            return nil
        }
    }

    public func record(_ action: QueueAction) async throws {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO actions (at, action, job, who, address, result) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [action.at, action.action, action.job?.rawValue, action.who, action.address, action.result])
        }
    }

    public func actions(limit: Int) async throws -> [QueueAction] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT at, action, job, who, address, result FROM actions ORDER BY id DESC LIMIT ?", arguments: [limit])
                .map { row in
                    QueueAction(
                        at: row[0], action: row[1], job: (row[2] as Int64?).map(DurableJobID.init), who: row[3], address: row[4], result: row[5])
                }
        }
    }
}
