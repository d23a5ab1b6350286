import Foundation
internal import Logging
internal import PostgresNIO
import Sequencer
import SequencerQueue

extension PostgresQueueStore {
    /// Enqueues one job of a batch with keys (see ``insert(keyless:now:location:_:_:)`` for the
    /// others): returns the live job with its key, or the new job, and whether it is a new
    /// available job.
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
        let states = try await needStates(Set(job.needs.map(\.rawValue)).sorted(), connection, logger)
        let (live, cause) = try standing(of: job, states, location: location)
        let state: DurableJobState = cause != nil ? .skipped : live.isEmpty ? .available : .waiting
        let retry = job.retry.stored
        let timeout = job.timeout.map(QueueClock.milliseconds)
        let error = cause.map(StoreText.needFailed)
        let errorCode: String? = cause == nil ? nil : "needFailed"
        let endedAt: Int64? = cause == nil ? nil : now
        // A key taken by a job enqueued meanwhile: its transaction committed, and the insert did
        // nothing; that job is the answer (or, if it ended since, the insert is tried again).
        for _ in 0..<3 {
            let inserted = try await connection.rows(
                """
                INSERT INTO sequencer.jobs (kind, input, state, priority, lane, key, pending_needs, run_at, retry, timeout_ms,
                                            enqueued_at, cause, error_code, error, ended_at, trace_context)
                VALUES (\(job.kind), \(job.input), \(state.rawValue), \(Int(job.priority.rawValue)), \(job.lane), \(job.key),
                        \(live.count), \(job.runAt), \(retry), \(timeout), \(now), \(cause), \(errorCode), \(error), \(endedAt),
                        \(job.traceContext))
                ON CONFLICT (key) WHERE key IS NOT NULL AND \(unescaped: SQLState.isLive) DO NOTHING
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

    /// The states of the jobs `ids`, read `FOR SHARE`: a need that is ending waits for this
    /// transaction, or this one sees its end, so a dependent never counts a need that has
    /// already released it.
    static func needStates(_ ids: [Int64], _ connection: PostgresConnection, _ logger: Logger) async throws -> [Int64: DurableJobState] {
        var states: [Int64: DurableJobState] = [:]
        guard !ids.isEmpty else { return states }
        for row in try await connection.rows("SELECT id, state FROM sequencer.jobs WHERE id = ANY(\(ids)) FOR SHARE", logger) {
            let (id, state) = try row.decode((Int64, Int).self)
            states[id] = DurableJobState(rawValue: state) ?? .failed
        }
        return states
    }

    static func liveJob(key: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> DurableJobID? {
        let rows = try await connection.rows("SELECT id FROM sequencer.jobs WHERE key = \(key) AND \(unescaped: SQLState.isLive)", logger)
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
        kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [ClaimedJob] {
        if let claimed = try await claimOutsideLanes(
            kinds: kinds, limit: limit, slots: slots, owner: owner, now: now, leaseUntil: leaseUntil, connection, logger)
        {
            return claimed
        }
        var picked: [Int64] = []
        var ahead: [Int64] = []
        var room: [String: Int]?
        var after: (priority: Int, id: Int64)?
        let page = max(limit * 2, 32)
        while picked.count < limit {
            let rows: [PostgresRow]
            if let after {
                rows = try await connection.rows(
                    """
                    SELECT id, priority, lane, attempt, lost_ahead FROM sequencer.jobs
                    WHERE state = \(unescaped: SQLState.available) AND run_at <= \(now) AND kind = ANY(\(kinds))
                      AND (priority < \(after.priority) OR (priority = \(after.priority) AND id > \(after.id)))
                    ORDER BY priority DESC, id LIMIT \(page) FOR UPDATE SKIP LOCKED
                    """, logger)
            } else {
                rows = try await connection.rows(
                    """
                    SELECT id, priority, lane, attempt, lost_ahead FROM sequencer.jobs
                    WHERE state = \(unescaped: SQLState.available) AND run_at <= \(now) AND kind = ANY(\(kinds))
                    ORDER BY priority DESC, id LIMIT \(page) FOR UPDATE SKIP LOCKED
                    """, logger)
            }
            let candidates = try rows.map { try $0.decode((Int64, Int, String?, Int, Bool).self) }
            for (id, _, lane, attempt, lostAhead) in candidates where picked.count < limit {
                let isAhead = picked.count >= slots
                if isAhead, lostAhead { continue }
                // A job after an attempt holds its slot already.
                if let lane, attempt == 0 {
                    if room == nil { room = try await laneRoom(connection, logger) }
                    guard let left = room?[lane], left > 0 else { continue }
                    room?[lane] = left - 1
                }
                picked.append(id)
                if isAhead { ahead.append(id) }
            }
            guard rows.count == page, let last = candidates.last else { break }
            after = (last.1, last.0)
        }
        guard !picked.isEmpty else { return [] }
        let updated = try await connection.rows(
            PostgresQuery(
                unsafeSQL: "UPDATE sequencer.jobs SET \(claiming), ahead = id = ANY($5) WHERE id = ANY($4) RETURNING \(claimedColumns)",
                binds: claimBinds(owner: owner, leaseUntil: leaseUntil, now: now, picked, ahead)), logger)
        var claimed: [Int64: ClaimedJob] = [:]
        for row in updated {
            let job = try claimedJob(row)
            claimed[job.id.rawValue] = job
        }
        return picked.compactMap { claimed[$0] }
    }

    /// What a claim sets, with the owner, the lease's end and the time as `$1`, `$2`, `$3`. A
    /// cancel asked of the job before (whose worker died, or retried) stays asked: the new
    /// attempt's first heartbeat stops it, as on SQLite.
    static let claiming = "state = \(SQLState.running), attempt = attempt + 1, owner = $1, lease_until = $2, started_at = $3"
    static let claimedColumns = "id, kind, input, attempt, priority, lane, timeout_ms, retry, greatest(run_at, enqueued_at, available_since) AS could_run_since, trace_context"

    /// The owner, the lease's end and the time (``claiming``), then `more`.
    static func claimBinds<Value: PostgresDynamicTypeEncodable>(owner: String, leaseUntil: Int64, now: Int64, _ more: Value...) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(owner)
        binds.append(leaseUntil)
        binds.append(now)
        for value in more { binds.append(value) }
        return binds
    }

    /// A row that begins with ``claimedColumns``.
    static func claimedJob(_ row: PostgresRow) throws -> ClaimedJob {
        let (id, kind, input, attempt, priority, lane, timeout, retry, since, trace) = try row.decode(
            (Int64, String, Data, Int, Int, String?, Int64?, String?, Int64?, String?).self)
        return ClaimedJob(
            id: DurableJobID(id), kind: kind, input: input, attempt: attempt,
            priority: UInt8(exactly: priority).flatMap(Priority.init(rawValue:)) ?? .utility, lane: lane,
            timeout: timeout.map { .milliseconds($0) }, retry: StoredRetry(stored: retry), availableSince: since,
            traceContext: trace)
    }

    /// The claim in one statement, when none of its first `limit` candidates would take a lane
    /// slot (the usual case): they are locked `FOR UPDATE SKIP LOCKED` and updated at once, and
    /// returned in claim order. Returns nil, having claimed nothing, when one would take a
    /// slot: ``claim(kinds:limit:slots:owner:now:leaseUntil:_:_:)`` then counts the lanes' slots
    /// (the candidates stay locked by this transaction meanwhile).
    static func claimOutsideLanes(
        kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64,
        _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [ClaimedJob]? {
        var binds = claimBinds(owner: owner, leaseUntil: leaseUntil, now: now, kinds)
        binds.append(limit)
        binds.append(slots)
        // The laned count comes last, on every row; no candidate is one row of NULLs and 0.
        // Candidates past the first `slots` are claimed ahead, but not one lost from a claim
        // ahead before (a window function may not share a SELECT with FOR UPDATE: numbered apart).
        let rows = try await connection.rows(
            PostgresQuery(
                unsafeSQL: """
                    WITH candidates AS (
                        SELECT id AS candidate, priority AS candidate_priority, lost_ahead AS was_lost,
                            lane IS NOT NULL AND attempt = 0 AS takes_slot
                        FROM sequencer.jobs
                        WHERE state = \(SQLState.available) AND run_at <= $3 AND kind = ANY($4)
                        ORDER BY priority DESC, id LIMIT $5 FOR UPDATE SKIP LOCKED
                    ), numbered AS (
                        SELECT candidate, was_lost, row_number() OVER (ORDER BY candidate_priority DESC, candidate) > $6 AS is_ahead
                        FROM candidates
                    ), laned AS (
                        SELECT count(*) AS laned FROM candidates WHERE takes_slot
                    ), claimed AS (
                        UPDATE sequencer.jobs SET \(claiming), ahead = is_ahead
                        FROM numbered WHERE id = candidate AND NOT (is_ahead AND was_lost) AND (SELECT laned FROM laned) = 0
                        RETURNING \(claimedColumns)
                    )
                    SELECT claimed.*, laned.laned FROM laned LEFT JOIN claimed ON true
                    """, binds: binds), logger)
        guard let first = rows.first, try first.makeRandomAccess()["laned"].decode(Int.self) == 0 else { return nil }
        guard try first.makeRandomAccess()["id"].decode(Int64?.self) != nil else { return [] }
        return try rows.map(claimedJob).sorted { ($0.priority.rawValue, -$0.id.rawValue) > ($1.priority.rawValue, -$1.id.rawValue) }
    }

    /// Locks every lane and returns the free slots of each.
    static func laneRoom(_ connection: PostgresConnection, _ logger: Logger) async throws -> [String: Int] {
        try await connection.rows("SELECT name FROM sequencer.lanes ORDER BY name FOR UPDATE", logger)
        // A statement of its own: it sees the claims committed while this one waited for the locks.
        let rows = try await connection.rows(
            """
            SELECT l.name, l.width - (SELECT count(*) FROM sequencer.jobs j
                                      WHERE j.lane = l.name AND (j.state = \(unescaped: SQLState.running) OR (j.state = \(unescaped: SQLState.available) AND j.attempt > 0)))
            FROM sequencer.lanes l
            """, logger)
        var room: [String: Int] = [:]
        for row in rows {
            let (name, left) = try row.decode((String, Int).self)
            room[name] = left
        }
        return room
    }

    /// What recording a batch of ends did.
    struct Recorded {
        /// Whether each end was recorded, in order.
        var recorded: [Bool]
        /// Dependents that became available.
        var freed: Set<Int64> = []
        /// Whether an end made its own job available again (a retry, a release).
        var again = false
        /// Jobs skipped because an end failed or cancelled a job they need.
        var skipped: [StoreEnd] = []

        /// Whether other workers must be woken, once `claimed` were claimed in the same
        /// transaction: a job became available that this transaction did not take.
        func mustNotify(claimed: [ClaimedJob]) -> Bool {
            again || !freed.isSubset(of: claimed.map(\.id.rawValue))
        }
    }

    /// Records ends, each fenced by its attempt and owner, without notifying (see
    /// ``Recorded/mustNotify(claimed:)``). The successes, nearly all of a busy worker's ends,
    /// are recorded together (``finish(succeeded:now:_:_:)``); the others one by one.
    static func record(_ ends: [AttemptEnd], now: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> Recorded {
        var result = Recorded(recorded: Array(repeating: false, count: ends.count))
        var successes: [(index: Int, end: AttemptEnd, output: Data)] = []
        for (index, end) in ends.enumerated() {
            if case .succeeded(let output) = end.outcome {
                successes.append((index, end, output))
                continue
            }
            let (done, again, skipped) = try await finish(end, now: now, connection, logger)
            result.recorded[index] = done
            result.again = result.again || again
            result.skipped += skipped
        }
        if !successes.isEmpty {
            let (done, freed) = try await finish(succeeded: successes.map { ($0.end, $0.output) }, now: now, connection, logger)
            for (position, success) in successes.enumerated() { result.recorded[success.index] = done.contains(position) }
            result.freed = freed
        }
        return result
    }

    /// Records successful attempts in one statement, each fenced by its attempt and owner, then
    /// releases their dependents by their counters in a second: each dependent's counter drops by the number
    /// of its needs that ended here, and those at zero become available. The dependents are
    /// locked in ID order first, so that two batches sharing dependents wait for each other
    /// rather than deadlock. Returns the positions in `ends` of those recorded (not their jobs'
    /// IDs: a late end and the current one of a job may share a batch), and the dependents that
    /// became available.
    static func finish(
        succeeded ends: [(AttemptEnd, Data)], now: Int64, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> (recorded: Set<Int>, freed: Set<Int64>) {
        let ids = ends.map { $0.0.id.rawValue }
        let attempts = ends.map { $0.0.attempt }
        let owners = ends.map { $0.0.owner }
        let outputs = ends.map { ByteBuffer(bytes: $0.1) }
        // Two statements, not one: the second takes its snapshot after the first got its row
        // locks. An enqueue that read an ending job `FOR SHARE` (a need, still running) holds
        // that UPDATE up until it commits its `needs` rows; a DELETE in the same statement
        // would not see those rows (its snapshot is older), and the new dependents would wait
        // for good.
        let ended = try await connection.rows(
            """
            UPDATE sequencer.jobs AS j SET state = \(unescaped: SQLState.succeeded), output = e.output, ended_at = \(now), owner = NULL, lease_until = NULL,
                error_code = NULL, error = NULL
            FROM unnest(\(ids)::bigint[], \(attempts)::bigint[], \(owners)::text[], \(outputs)::bytea[])
                WITH ORDINALITY AS e(id, attempt, owner, output, position)
            WHERE j.id = e.id AND j.state = \(unescaped: SQLState.running) AND j.attempt = e.attempt AND j.owner = e.owner
            RETURNING j.id, e.position
            """, logger
        ).map { try $0.decode((Int64, Int64).self) }
        guard !ended.isEmpty else { return ([], []) }
        let rows = try await connection.rows(
            """
            WITH released AS (
                DELETE FROM sequencer.needs AS n WHERE n.need = ANY(\(ended.map(\.0))) RETURNING n.job
            ), counted AS (
                SELECT job, count(*) AS count FROM released GROUP BY job
            ), locked AS (
                SELECT j.id, counted.count FROM sequencer.jobs AS j JOIN counted ON counted.job = j.id
                WHERE j.state = \(unescaped: SQLState.waiting) ORDER BY j.id FOR UPDATE OF j
            ), freed AS (
                UPDATE sequencer.jobs AS j SET pending_needs = j.pending_needs - locked.count,
                    state = CASE WHEN j.pending_needs = locked.count THEN \(unescaped: SQLState.available) ELSE \(unescaped: SQLState.waiting) END,
                    available_since = CASE WHEN j.pending_needs = locked.count THEN \(now) ELSE NULL END
                FROM locked WHERE j.id = locked.id AND j.state = \(unescaped: SQLState.waiting)
                RETURNING j.id, j.state
            )
            SELECT coalesce((SELECT array_agg(id) FROM freed WHERE state = \(unescaped: SQLState.available)), '{}')
            """, logger)
        let freed = try rows.first?.decode([Int64].self) ?? []
        return (Set(ended.map { Int($0.1) - 1 }), Set(freed))
    }

    /// Records one attempt's end other than a success, if the attempt still holds its job;
    /// returns whether it did, whether its job became available again, and the jobs it skipped.
    static func finish(
        _ end: AttemptEnd, now: Int64, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> (Bool, Bool, [StoreEnd]) {
        let id = end.id.rawValue
        let attempt = end.attempt
        let owner = end.owner
        /// Each UPDATE is fenced by `WHERE id AND state = running AND attempt AND owner`: it changes
        /// nothing for an attempt that no longer holds the job.
        func update(_ query: PostgresQuery) async throws -> Bool { try await !connection.rows(query, logger).isEmpty }
        switch end.outcome {
        case .succeeded(let output):
            let (done, freed) = try await finish(succeeded: [(end, output)], now: now, connection, logger)
            return (done.contains(0), !freed.isEmpty, [])
        case .failed(let code, let message, let retryAt?):
            let done = try await update(
                "UPDATE sequencer.jobs SET state = \(unescaped: SQLState.available), run_at = \(retryAt), owner = NULL, lease_until = NULL, error_code = \(code), error = \(message) WHERE id = \(id) AND state = \(unescaped: SQLState.running) AND attempt = \(attempt) AND owner = \(owner) RETURNING id")
            return (done, done, [])
        case .failed(let code, let message, nil):
            guard try await update(
                "UPDATE sequencer.jobs SET state = \(unescaped: SQLState.failed), ended_at = \(now), owner = NULL, lease_until = NULL, error_code = \(code), error = \(message) WHERE id = \(id) AND state = \(unescaped: SQLState.running) AND attempt = \(attempt) AND owner = \(owner) RETURNING id"
            ) else { return (false, false, []) }
            return (true, false, try await skipDependents(of: id, now: now, connection, logger))
        case .cancelled:
            guard try await update(
                "UPDATE sequencer.jobs SET state = \(unescaped: SQLState.cancelled), ended_at = \(now), owner = NULL, lease_until = NULL, error_code = 'cancelled', error = 'cancelled while it ran' WHERE id = \(id) AND state = \(unescaped: SQLState.running) AND attempt = \(attempt) AND owner = \(owner) RETURNING id"
            ) else { return (false, false, []) }
            return (true, false, try await skipDependents(of: id, now: now, connection, logger))
        case .released:
            let done = try await update(
                "UPDATE sequencer.jobs SET state = \(unescaped: SQLState.available), attempt = attempt - 1, run_at = \(now), owner = NULL, lease_until = NULL WHERE id = \(id) AND state = \(unescaped: SQLState.running) AND attempt = \(attempt) AND owner = \(owner) RETURNING id")
            return (done, done, [])
        }
    }

    /// Skips every job that needs `job`, directly or not, level by level: they can never start.
    /// Returns them.
    @discardableResult
    static func skipDependents(of job: Int64, now: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> [StoreEnd] {
        var frontier = [job]
        var skipped: [StoreEnd] = []
        while !frontier.isEmpty {
            let rows = try await connection.rows(
                """
                WITH gone AS (DELETE FROM sequencer.needs WHERE need = ANY(\(frontier)) RETURNING need, job)
                UPDATE sequencer.jobs AS j SET state = \(unescaped: SQLState.skipped), ended_at = \(now), cause = gone.need, error_code = 'needFailed',
                    error = \(unescaped: StoreText.needFailedSQL("gone.need"))
                FROM gone WHERE j.id = gone.job AND \(unescaped: "j." + SQLState.isPending)
                RETURNING j.id, j.kind, j.lane
                """, logger)
            let ended = try rows.map { try $0.decode((Int64, String, String?).self) }
            skipped += ended.map { StoreEnd(id: DurableJobID($0.0), kind: $0.1, lane: $0.2, reason: .skipped) }
            frontier = ended.map(\.0)
        }
        return skipped
    }
}
