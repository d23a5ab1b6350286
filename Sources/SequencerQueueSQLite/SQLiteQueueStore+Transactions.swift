import Foundation
internal import GRDB
import Sequencer

/// The transactions of ``SQLiteQueueStore``, each a step of the job state machine (see
/// ``DurableJobState``), run inside the store's write transaction.
extension SQLiteQueueStore {
    static let columns = """
        id, kind, state, key, lane, priority, attempt, crashes, error_code, error, cause, enqueued_at, run_at, \
        started_at, ended_at, owner
        """

    static func job(_ row: Row) -> DurableJob {
        DurableJob(
            id: DurableJobID(row[0]), kind: row[1], state: DurableJobState(rawValue: row[2]) ?? .failed, key: row[3], lane: row[4],
            priority: Priority(rawValue: row[5]) ?? .utility, attempts: row[6], crashes: row[7], errorCode: row[8], error: row[9],
            cause: (row[10] as Int64?).map(DurableJobID.init), enqueuedAt: row[11], runAt: row[12], startedAt: row[13],
            endedAt: row[14], owner: row[15], output: row[16])
    }

    /// Enqueues one job: returns the live job with its key, or the new job.
    static func insert(_ job: NewDurableJob, now: Int64, path: String, _ db: Database) throws -> DurableJobID {
        if let key = job.key {
            guard !key.isEmpty else {
                throw QueueError(code: .invalidOption, location: path, message: "a job of kind '\(job.kind)' has an empty key")
            }
            if let live = try Int64.fetchOne(cached: db, sql: "SELECT id FROM jobs WHERE key = ? AND \(SQLState.isLive)", arguments: [key]) {
                return DurableJobID(live)
            }
        }
        if let lane = job.lane, try Int.fetchOne(cached: db, sql: "SELECT width FROM lanes WHERE name = ?", arguments: [lane]) == nil {
            throw QueueError(code: .unknownLane, location: path, message: "a job of kind '\(job.kind)' uses lane '\(lane)', which no one declared with lane(_:width:)")
        }
        var remaining = 0
        var live: [Int64] = []
        var cause: Int64?
        for need in Set(job.needs) {
            guard let raw = try Int.fetchOne(cached: db, sql: "SELECT state FROM jobs WHERE id = ?", arguments: [need.rawValue]),
                let state = DurableJobState(rawValue: raw)
            else {
                throw QueueError(code: .unknownNeed, location: path, message: "a job of kind '\(job.kind)' needs job \(need), which the queue does not have (never enqueued, or pruned after it ended)")
            }
            switch state {
            case .succeeded: break
            case .waiting, .available, .running:
                remaining += 1
                live.append(need.rawValue)
            case .failed, .cancelled, .skipped:
                cause = min(cause ?? need.rawValue, need.rawValue)
            }
        }
        let state: DurableJobState = cause != nil ? .skipped : remaining > 0 ? .waiting : .available
        try db.executeCached(
            sql: """
                INSERT INTO jobs (kind, input, state, priority, lane, key, pending_needs, run_at, retry, timeout_ms, enqueued_at,
                                  cause, error_code, error, ended_at, trace_context)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                job.kind, job.input, state.rawValue, Int(job.priority.rawValue), job.lane, job.key, remaining,
                job.runAt, job.retry.stored, job.timeout.map(QueueClock.milliseconds), now,
                cause, cause == nil ? nil : "needFailed", cause.map(StoreText.needFailed),
                cause == nil ? nil : now, job.traceContext,
            ])
        let id = db.lastInsertedRowID
        for need in live {
            try db.executeCached(sql: "INSERT INTO needs (need, job) VALUES (?, ?)", arguments: [need, id])
        }
        return DurableJobID(id)
    }

    /// Claims up to `limit` jobs within their lanes' room.
    ///
    /// A lane's slots are held by its running jobs and by its jobs waiting to be tried again
    /// (available after an attempt: a retry, or a job taken back from a worker that died), as a
    /// retrying job keeps its lane slot in memory: so a lane of width 1 runs its jobs one after
    /// the other, in order, retries included. Such a job takes its own slot back when it is
    /// claimed.
    ///
    /// The jobs beyond the first `slots` are claimed ahead (marked `ahead`), and a job taken
    /// back once from a claim ahead (`lost_ahead`) is claimed only into a slot.
    static func claim(
        kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64, _ db: Database
    ) throws -> [ClaimedJob] {
        var room: [String: Int] = [:]
        let held = "SELECT count(*) FROM jobs WHERE lane = lanes.name AND (state = \(SQLState.running) OR (state = \(SQLState.available) AND attempt > 0))"
        for row in try Row.fetchAll(cached: db, sql: "SELECT name, width - (\(held)) FROM lanes") {
            room[row[0]] = row[1]
        }
        var claimed: [ClaimedJob] = []
        var after: (priority: Int, id: Int64)?
        // Pages of candidates, in claim order, until enough fit in their lanes (with no lane
        // declared, the first page is enough unless it holds jobs of undeclared lanes).
        while claimed.count < limit {
            let page = room.isEmpty ? max(limit - claimed.count, 32) : max(limit * 2, 32)
            var sql = """
                SELECT id, kind, input, attempt, priority, lane, timeout_ms, retry, lost_ahead,
                    max(run_at, enqueued_at, coalesce(available_since, 0)), trace_context FROM jobs INDEXED BY jobs_available
                WHERE state = \(SQLState.available) AND run_at <= ? AND kind IN \(placeholders(kinds.count))
                """
            var arguments: StatementArguments = [now]
            arguments += StatementArguments(kinds)
            if let after {
                sql += " AND (priority < ? OR (priority = ? AND id > ?))"
                arguments += [after.priority, after.priority, after.id]
            }
            sql += " ORDER BY priority DESC, id LIMIT ?"
            arguments += [page]
            // Read from the statement as it steps (no copy of each row), written once it ended.
            let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
            var count = 0
            var ids: [Int64] = []
            var ahead: [Int64] = []
            while let row = try rows.next() {
                count += 1
                after = (row[4], row[0])
                guard claimed.count < limit else { continue }
                let isAhead = claimed.count >= slots
                if isAhead, (row[8] as Int) != 0 { continue }
                let lane: String? = row[5]
                // A job after an attempt holds its slot already.
                if let lane, (row[3] as Int) == 0 {
                    guard let left = room[lane], left > 0 else { continue }
                    room[lane] = left - 1
                }
                let id: Int64 = row[0]
                ids.append(id)
                if isAhead { ahead.append(id) }
                claimed.append(ClaimedJob(
                    id: DurableJobID(id), kind: row[1], input: row[2], attempt: (row[3] as Int) + 1,
                    priority: Priority(rawValue: row[4]) ?? .utility, lane: lane, timeout: (row[6] as Int64?).map { .milliseconds($0) },
                    retry: StoredRetry(stored: row[7]), availableSince: row[9], traceContext: row[10]))
            }
            if !ids.isEmpty {
                // One statement for the page's jobs, their IDs in a JSON array.
                try db.executeCached(
                    sql: """
                        UPDATE jobs SET state = \(SQLState.running), attempt = attempt + 1, owner = ?, lease_until = ?, started_at = ?,
                            ahead = id IN (SELECT value FROM json_each(?))
                        WHERE id IN (SELECT value FROM json_each(?))
                        """,
                    arguments: [owner, leaseUntil, now, Self.jsonArray(ahead), Self.jsonArray(ids)])
            }
            guard count == page else { break }
        }
        return claimed
    }

    /// IDs as one JSON array, for `json_each`: one argument, however many.
    static func jsonArray(_ ids: [Int64]) -> String { "[" + ids.map(String.init).joined(separator: ",") + "]" }

    /// Cancels a job: a waiting or available one ends, and its dependents are skipped; a running
    /// one is marked for its worker. Returns its state after; nil when there is no such job.
    static func cancel(_ id: Int64, now: Int64, _ db: Database) throws -> DurableJobState? {
        guard let raw = try Int.fetchOne(cached: db, sql: "SELECT state FROM jobs WHERE id = ?", arguments: [id]),
            let state = DurableJobState(rawValue: raw)
        else { return nil }
        switch state {
        case .waiting, .available:
            try db.executeCached(
                sql: "UPDATE jobs SET state = \(SQLState.cancelled), ended_at = ?, error_code = 'cancelled', error = 'cancelled before it ran' WHERE id = ?",
                arguments: [now, id])
            try skipDependents(of: id, now: now, db)
            return .cancelled
        case .running:
            try db.executeCached(sql: "UPDATE jobs SET cancel_requested = 1 WHERE id = ?", arguments: [id])
            return .running
        default:
            return state
        }
    }

    /// Records one attempt's end, if the attempt still holds its job.
    static func finish(_ end: AttemptEnd, now: Int64, _ db: Database) throws -> Bool {
        var skipped: [StoreEnd] = []
        return try finish(end, now: now, db, skipped: &skipped)
    }

    /// Records one attempt's end, if the attempt still holds its job; adds the jobs it skipped
    /// to `skipped`.
    static func finish(_ end: AttemptEnd, now: Int64, _ db: Database, skipped: inout [StoreEnd]) throws -> Bool {
        let holder = "WHERE id = ? AND state = \(SQLState.running) AND attempt = ? AND owner = ?"
        let fence: StatementArguments = [end.id.rawValue, end.attempt, end.owner]
        switch end.outcome {
        case .succeeded(let output):
            try db.executeCached(
                sql: "UPDATE jobs SET state = \(SQLState.succeeded), output = ?, ended_at = ?, owner = NULL, lease_until = NULL, error_code = NULL, error = NULL \(holder)",
                arguments: [output, now] + fence)
            guard db.changesCount == 1 else { return false }
            // Its dependents (none, for most jobs), each available once its last need succeeded.
            let dependents = try Int64.fetchAll(cached: db, sql: "DELETE FROM needs WHERE need = ? RETURNING job", arguments: [end.id.rawValue])
            for dependent in dependents {
                try db.executeCached(
                    sql: """
                        UPDATE jobs SET pending_needs = pending_needs - 1,
                            state = CASE WHEN pending_needs = 1 THEN \(SQLState.available) ELSE \(SQLState.waiting) END,
                            available_since = CASE WHEN pending_needs = 1 THEN ? ELSE NULL END
                        WHERE id = ? AND state = \(SQLState.waiting)
                        """,
                    arguments: [now, dependent])
            }
        case .failed(let code, let message, let retryAt?):
            try db.executeCached(
                sql: "UPDATE jobs SET state = \(SQLState.available), run_at = ?, owner = NULL, lease_until = NULL, error_code = ?, error = ? \(holder)",
                arguments: [retryAt, code, message] + fence)
            return db.changesCount == 1
        case .failed(let code, let message, nil):
            try db.executeCached(
                sql: "UPDATE jobs SET state = \(SQLState.failed), ended_at = ?, owner = NULL, lease_until = NULL, error_code = ?, error = ? \(holder)",
                arguments: [now, code, message] + fence)
            guard db.changesCount == 1 else { return false }
            skipped += try skipDependents(of: end.id.rawValue, now: now, db)
        case .cancelled:
            try db.executeCached(
                sql: "UPDATE jobs SET state = \(SQLState.cancelled), ended_at = ?, owner = NULL, lease_until = NULL, error_code = 'cancelled', error = 'cancelled while it ran' \(holder)",
                arguments: [now] + fence)
            guard db.changesCount == 1 else { return false }
            skipped += try skipDependents(of: end.id.rawValue, now: now, db)
        case .released:
            try db.executeCached(
                sql: "UPDATE jobs SET state = \(SQLState.available), attempt = attempt - 1, run_at = ?, owner = NULL, lease_until = NULL \(holder)",
                arguments: [now] + fence)
            return db.changesCount == 1
        }
        return true
    }

    /// Skips every job that needs `job`, directly or not: they can never start. Returns them.
    @discardableResult
    static func skipDependents(of job: Int64, now: Int64, _ db: Database) throws -> [StoreEnd] {
        var skipped: [StoreEnd] = []
        var frontier = [job]
        while let need = frontier.popLast() {
            let dependents = try Int64.fetchAll(cached: db, sql: "SELECT job FROM needs WHERE need = ?", arguments: [need])
            try db.executeCached(sql: "DELETE FROM needs WHERE need = ?", arguments: [need])
            for dependent in dependents {
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: """
                        UPDATE jobs SET state = \(SQLState.skipped), ended_at = ?, cause = ?, error_code = 'needFailed',
                        error = ? WHERE id = ? AND \(SQLState.isPending) RETURNING kind, lane
                        """),
                    arguments: [now, need, StoreText.needFailed(need), dependent])
                if let row {
                    skipped.append(StoreEnd(id: DurableJobID(dependent), kind: row[0], lane: row[1], reason: .skipped))
                    frontier.append(dependent)
                }
            }
        }
        return skipped
    }
}

extension Database {
    /// Runs one statement, compiled once per connection and kept in GRDB's statement cache: the
    /// queue runs the same few statements for every job, and compiling one (parsing, GRDB's
    /// authorizer) cost more than running it.
    func executeCached(sql: String, arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}

extension Row {
    /// The rows of a statement kept in the statement cache (see `Database.executeCached`).
    static func fetchAll(cached db: Database, sql: String, arguments: StatementArguments = []) throws -> [Row] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// A value of a statement kept in the statement cache (see `Database.executeCached`).
    static func fetchOne(cached db: Database, sql: String, arguments: StatementArguments = []) throws -> Self? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    /// The values of a statement kept in the statement cache (see `Database.executeCached`).
    static func fetchAll(cached db: Database, sql: String, arguments: StatementArguments = []) throws -> [Self] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }
}
