import Foundation
internal import Logging
internal import PostgresNIO
import Sequencer
import SequencerQueue

extension PostgresQueueStore {
    /// Enqueues one job: returns the live job with its key, or the new job, and whether it is
    /// a new available job.
    ///
    /// The needs are read `FOR SHARE`: a need that is ending waits for this transaction, or this
    /// one sees its end, so a dependent never counts a need that has already released it.
    static func insert(
        _ job: NewDurableJob, now: Int64, location: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> (DurableJobID, available: Bool) {
        if let key = job.key {
            guard !key.isEmpty else {
                throw QueueError(code: .invalidOption, location: location, message: "a job of kind '\(job.kind)' has an empty key")
            }
            if let live = try await liveJob(key: key, connection, logger) { return (live, false) }
        }
        if let lane = job.lane, try await connection.rows("SELECT 1 FROM sequencer.lanes WHERE name = \(lane)", logger).isEmpty {
            throw QueueError(code: .unknownLane, location: location, message: "a job of kind '\(job.kind)' uses lane '\(lane)', which no one declared with lane(_:width:)")
        }
        let needs = Set(job.needs.map(\.rawValue)).sorted()
        var states: [Int64: DurableJobState] = [:]
        if !needs.isEmpty {
            for row in try await connection.rows("SELECT id, state FROM sequencer.jobs WHERE id = ANY(\(needs)) FOR SHARE", logger) {
                let (id, state) = try row.decode((Int64, Int).self)
                states[id] = DurableJobState(rawValue: state) ?? .failed
            }
        }
        var live: [Int64] = []
        var cause: Int64?
        for need in needs {
            guard let state = states[need] else {
                throw QueueError(code: .unknownNeed, location: location, message: "a job of kind '\(job.kind)' needs job #\(need), which the queue does not have (never enqueued, or pruned after it ended)")
            }
            switch state {
            case .succeeded: break
            case .waiting, .available, .running: live.append(need)
            case .failed, .cancelled, .skipped: cause = min(cause ?? need, need)
            }
        }
        let state: DurableJobState = cause != nil ? .skipped : live.isEmpty ? .available : .waiting
        let retry = job.retry == .none ? nil : (try? JSONEncoder().encode(job.retry)).map { String(decoding: $0, as: UTF8.self) }
        let timeout = job.timeout.map(milliseconds)
        let error = cause.map { "job #\($0), which it needs, did not succeed" }
        let errorCode: String? = cause == nil ? nil : "needFailed"
        let endedAt: Int64? = cause == nil ? nil : now
        // A key taken by a job enqueued meanwhile: its transaction committed, and the insert did
        // nothing; that job is the answer (or, if it ended since, the insert is tried again).
        for _ in 0..<3 {
            let inserted = try await connection.rows(
                """
                INSERT INTO sequencer.jobs (kind, input, state, priority, lane, key, pending_needs, run_at, retry, timeout_ms,
                                            enqueued_at, cause, error_code, error, ended_at)
                VALUES (\(job.kind), \(job.input), \(state.rawValue), \(Int(job.priority.rawValue)), \(job.lane), \(job.key),
                        \(live.count), \(job.runAt), \(retry), \(timeout), \(now), \(cause), \(errorCode), \(error), \(endedAt))
                ON CONFLICT (key) WHERE key IS NOT NULL AND state <= 2 DO NOTHING
                RETURNING id
                """, logger)
            if let row = inserted.first {
                let id = try row.decode(Int64.self)
                if !live.isEmpty {
                    try await connection.rows("INSERT INTO sequencer.needs (need, job) SELECT unnest(\(live)::bigint[]), \(id)", logger)
                }
                return (DurableJobID(id), state == .available)
            }
            if let key = job.key, let existing = try await liveJob(key: key, connection, logger) { return (existing, false) }
        }
        throw QueueError(code: .database, location: location, message: "a job of kind '\(job.kind)' with key '\(job.key ?? "")' could not be enqueued: its key kept changing hands; try again")
    }

    static func liveJob(key: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> DurableJobID? {
        let rows = try await connection.rows("SELECT id FROM sequencer.jobs WHERE key = \(key) AND state <= 2", logger)
        return try rows.first.map { DurableJobID(try $0.decode(Int64.self)) }
    }

    /// Claims up to `limit` jobs within their lanes' room.
    ///
    /// Candidates are locked `FOR UPDATE SKIP LOCKED`, in claim order: rows that another
    /// claim holds are passed over, never waited for. When a candidate would take a lane slot,
    /// every lane row is locked `FOR UPDATE` (in name order, so two claims never deadlock) and
    /// the slots are counted after the lock is held: claims that take lane slots run one at a
    /// time across the fleet, so a lane's width holds. As in the SQLite store, a lane's slots
    /// are held by its running jobs and its jobs waiting to be tried again.
    static func claim(
        kinds: [String], limit: Int, owner: String, now: Int64, leaseUntil: Int64, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [ClaimedJob] {
        var picked: [Int64] = []
        var room: [String: Int]?
        var after: (priority: Int, id: Int64)?
        let page = max(limit * 2, 32)
        while picked.count < limit {
            let rows: [PostgresRow]
            if let after {
                rows = try await connection.rows(
                    """
                    SELECT id, priority, lane, attempt FROM sequencer.jobs
                    WHERE state = 1 AND run_at <= \(now) AND kind = ANY(\(kinds))
                      AND (priority < \(after.priority) OR (priority = \(after.priority) AND id > \(after.id)))
                    ORDER BY priority DESC, id LIMIT \(page) FOR UPDATE SKIP LOCKED
                    """, logger)
            } else {
                rows = try await connection.rows(
                    """
                    SELECT id, priority, lane, attempt FROM sequencer.jobs
                    WHERE state = 1 AND run_at <= \(now) AND kind = ANY(\(kinds))
                    ORDER BY priority DESC, id LIMIT \(page) FOR UPDATE SKIP LOCKED
                    """, logger)
            }
            let candidates = try rows.map { try $0.decode((Int64, Int, String?, Int).self) }
            for (id, _, lane, attempt) in candidates where picked.count < limit {
                // A job after an attempt holds its slot already.
                if let lane, attempt == 0 {
                    if room == nil { room = try await laneRoom(connection, logger) }
                    guard let left = room?[lane], left > 0 else { continue }
                    room?[lane] = left - 1
                }
                picked.append(id)
            }
            guard rows.count == page, let last = candidates.last else { break }
            after = (last.1, last.0)
        }
        guard !picked.isEmpty else { return [] }
        let updated = try await connection.rows(
            """
            UPDATE sequencer.jobs SET state = 2, attempt = attempt + 1, owner = \(owner), lease_until = \(leaseUntil),
                started_at = \(now), cancel_requested = false
            WHERE id = ANY(\(picked))
            RETURNING id, kind, input, attempt, priority, lane, timeout_ms, retry
            """, logger)
        var claimed: [Int64: ClaimedJob] = [:]
        for row in updated {
            let (id, kind, input, attempt, priority, lane, timeout, retry) = try row.decode(
                (Int64, String, Data, Int, Int, String?, Int64?, String?).self)
            claimed[id] = ClaimedJob(
                id: DurableJobID(id), kind: kind, input: input, attempt: attempt,
                priority: UInt8(exactly: priority).flatMap(Priority.init(rawValue:)) ?? .utility, lane: lane,
                timeout: timeout.map { .milliseconds($0) }, retry: decodeRetry(retry))
        }
        return picked.compactMap { claimed[$0] }
    }

    /// Locks every lane and returns the free slots of each.
    static func laneRoom(_ connection: PostgresConnection, _ logger: Logger) async throws -> [String: Int] {
        try await connection.rows("SELECT name FROM sequencer.lanes ORDER BY name FOR UPDATE", logger)
        // A statement of its own: it sees the claims committed while this one waited for the locks.
        let rows = try await connection.rows(
            """
            SELECT l.name, l.width - (SELECT count(*) FROM sequencer.jobs j
                                      WHERE j.lane = l.name AND (j.state = 2 OR (j.state = 1 AND j.attempt > 0)))
            FROM sequencer.lanes l
            """, logger)
        var room: [String: Int] = [:]
        for row in rows {
            let (name, left) = try row.decode((String, Int).self)
            room[name] = left
        }
        return room
    }

    /// Records ends, each fenced by its attempt and owner; notifies when one made a job
    /// available.
    static func finish(_ ends: [AttemptEnd], now: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> [Bool] {
        var recorded: [Bool] = []
        var available = false
        for end in ends {
            let (done, freed) = try await finish(end, now: now, connection, logger)
            recorded.append(done)
            available = available || freed
        }
        if available { try await notify(connection, logger) }
        return recorded
    }

    /// Records one attempt's end, if the attempt still holds its job; returns whether it did,
    /// and whether a job became available.
    static func finish(_ end: AttemptEnd, now: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> (Bool, Bool) {
        let id = end.id.rawValue
        let attempt = end.attempt
        let owner = end.owner
        /// Each UPDATE is fenced by `WHERE id AND state = 2 AND attempt AND owner`: it changes
        /// nothing for an attempt that no longer holds the job.
        func update(_ query: PostgresQuery) async throws -> Bool { try await !connection.rows(query, logger).isEmpty }
        switch end.outcome {
        case .succeeded(let output):
            guard try await update(
                "UPDATE sequencer.jobs SET state = 3, output = \(output), ended_at = \(now), owner = NULL, lease_until = NULL, error_code = NULL, error = NULL WHERE id = \(id) AND state = 2 AND attempt = \(attempt) AND owner = \(owner) RETURNING id"
            ) else { return (false, false) }
            // Its dependents' counters, in this transaction: those at zero become available.
            let freed = try await connection.rows(
                """
                WITH done AS (DELETE FROM sequencer.needs WHERE need = \(id) RETURNING job)
                UPDATE sequencer.jobs AS j SET pending_needs = pending_needs - 1, state = CASE WHEN pending_needs = 1 THEN 1 ELSE 0 END
                FROM done WHERE j.id = done.job AND j.state = 0
                RETURNING j.state
                """, logger)
            return (true, try freed.contains { try $0.decode(Int.self) == DurableJobState.available.rawValue })
        case .failed(let code, let message, let retryAt?):
            let done = try await update(
                "UPDATE sequencer.jobs SET state = 1, run_at = \(retryAt), owner = NULL, lease_until = NULL, error_code = \(code), error = \(message) WHERE id = \(id) AND state = 2 AND attempt = \(attempt) AND owner = \(owner) RETURNING id")
            return (done, done)
        case .failed(let code, let message, nil):
            guard try await update(
                "UPDATE sequencer.jobs SET state = 4, ended_at = \(now), owner = NULL, lease_until = NULL, error_code = \(code), error = \(message) WHERE id = \(id) AND state = 2 AND attempt = \(attempt) AND owner = \(owner) RETURNING id"
            ) else { return (false, false) }
            try await skipDependents(of: id, now: now, connection, logger)
        case .cancelled:
            guard try await update(
                "UPDATE sequencer.jobs SET state = 5, ended_at = \(now), owner = NULL, lease_until = NULL, error_code = 'cancelled', error = 'cancelled while it ran' WHERE id = \(id) AND state = 2 AND attempt = \(attempt) AND owner = \(owner) RETURNING id"
            ) else { return (false, false) }
            try await skipDependents(of: id, now: now, connection, logger)
        case .released:
            let done = try await update(
                "UPDATE sequencer.jobs SET state = 1, attempt = attempt - 1, run_at = \(now), owner = NULL, lease_until = NULL WHERE id = \(id) AND state = 2 AND attempt = \(attempt) AND owner = \(owner) RETURNING id")
            return (done, done)
        }
        return (true, false)
    }

    /// Skips every job that needs `job`, directly or not, level by level: they can never start.
    static func skipDependents(of job: Int64, now: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws {
        var frontier = [job]
        while !frontier.isEmpty {
            let rows = try await connection.rows(
                """
                WITH gone AS (DELETE FROM sequencer.needs WHERE need = ANY(\(frontier)) RETURNING need, job)
                UPDATE sequencer.jobs AS j SET state = 6, ended_at = \(now), cause = gone.need, error_code = 'needFailed',
                    error = 'job #' || gone.need || ', which it needs, did not succeed'
                FROM gone WHERE j.id = gone.job AND j.state <= 1
                RETURNING j.id
                """, logger)
            frontier = try rows.map { try $0.decode(Int64.self) }
        }
    }

    /// A stored retry policy (JSON); one that does not decode (written by hand, say) is no retry.
    static func decodeRetry(_ text: String?) -> StoredRetry {
        guard let text, let retry = try? JSONDecoder().decode(StoredRetry.self, from: Data(text.utf8)) else { return .none }
        return retry
    }

    /// A duration in whole milliseconds, rounded up.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, part) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000_000_000)
        return seconds * 1000 + whole + (part > 0 ? 1 : 0)
    }
}
