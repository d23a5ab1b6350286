import Foundation
internal import Logging
internal import PostgresNIO
import Sequencer
public import SequencerQueue

extension PostgresQueueStore {
    public func enqueue(_ jobs: [NewDurableJob], now: Int64) async throws -> [DurableJobID] {
        guard !jobs.isEmpty else { return [] }
        let location = description
        return try await transaction("enqueueing") { connection, logger in
            let (ids, available) = try await Self.insertAll(jobs, now: now, location: location, connection, logger)
            if available { try await Self.notify(connection, logger) }
            return ids
        }
    }

    /// Inserts a batch in this transaction: in a fixed few statements when no job has a key,
    /// else job by job. Returns the IDs in the batch's order, and whether a job is available.
    static func insertAll(
        _ jobs: [NewDurableJob], now: Int64, location: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> ([DurableJobID], available: Bool) {
        if jobs.allSatisfy({ $0.key == nil }) {
            return try await insert(keyless: jobs, now: now, location: location, connection, logger)
        }
        var ids: [DurableJobID] = []
        var available = false
        for (position, job) in jobs.enumerated() {
            let resolved = try job.resolvingBatchNeeds(ids, position: position, location: location)
            let (id, made) = try await insert(resolved, now: now, location: location, connection, logger)
            ids.append(id)
            available = available || made
        }
        return (ids, available)
    }

    public func claim(kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64) async throws -> [ClaimedJob] {
        guard limit > 0, !kinds.isEmpty else { return [] }
        return try await transaction("claiming") { connection, logger in
            try await Self.claim(kinds: kinds, limit: limit, slots: slots, owner: owner, now: now, leaseUntil: leaseUntil, connection, logger)
        }
    }

    public func finish(_ ends: [AttemptEnd], now: Int64) async throws -> [Bool] {
        guard !ends.isEmpty else { return [] }
        return try await transaction("recording ends") { connection, logger in
            let recorded = try await Self.record(ends, now: now, connection, logger)
            if recorded.mustNotify(claimed: []) { try await Self.notify(connection, logger) }
            return recorded.recorded
        }
    }

    public func finishAndClaim(
        _ ends: [AttemptEnd], kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64
    ) async throws -> StoreTurn {
        guard !ends.isEmpty || (limit > 0 && !kinds.isEmpty) else { return StoreTurn() }
        // Dependents that the claim takes need wake no one: only those it leaves are notified.
        return try await transaction("recording ends and claiming") { connection, logger in
            let recorded = try await Self.record(ends, now: now, connection, logger)
            var claimed: [ClaimedJob] = []
            if limit > 0, !kinds.isEmpty {
                claimed = try await Self.claim(
                    kinds: kinds, limit: limit, slots: slots, owner: owner, now: now, leaseUntil: leaseUntil, connection, logger)
            }
            if recorded.mustNotify(claimed: claimed) { try await Self.notify(connection, logger) }
            return StoreTurn(recorded: recorded.recorded, claimed: claimed, skipped: recorded.skipped)
        }
    }

    /// One statement: renews the leases of `owner` among `jobs` (a HOT update: `lease_until` is
    /// in no index) and returns those it still runs with their cancel flags.
    public func heartbeat(owner: String, jobs: [DurableJobID], leaseUntil: Int64, now: Int64) async throws -> [DurableJobID] {
        guard !jobs.isEmpty else { return [] }
        let ids = jobs.map(\.rawValue)
        let rows = try await rows(
            "renewing leases",
            """
            UPDATE sequencer.jobs SET lease_until = \(leaseUntil)
            WHERE id = ANY(\(ids)) AND state = \(unescaped: SQLState.running) AND owner = \(owner) RETURNING id, cancel_requested
            """)
        var keep = Set<Int64>()
        for row in rows {
            let (id, cancelled) = try row.decode((Int64, Bool).self)
            if !cancelled { keep.insert(id) }
        }
        return jobs.filter { !keep.contains($0.rawValue) }
    }

    /// One UPDATE takes back every expired lease; its WHERE is checked again on each row it
    /// changes, so a lease renewed by a heartbeat that committed meanwhile is left alone.
    public func takeBack(now: Int64, poisonLimit: Int) async throws -> [StoreEnd] {
        try await transaction("taking back expired leases") { connection, logger in
            // A job claimed ahead waited in its worker for a slot: no crash of its own.
            let poisoned = "NOT ahead AND crashes + 1 >= $2"
            let rows = try await connection.rows(
                PostgresQuery(
                    unsafeSQL: """
                        UPDATE sequencer.jobs SET crashes = crashes + CASE WHEN ahead THEN 0 ELSE 1 END,
                            owner = NULL, lease_until = NULL, error_code = 'crashed',
                            state = CASE WHEN \(poisoned) THEN \(SQLState.failed) ELSE \(SQLState.available) END,
                            run_at = CASE WHEN \(poisoned) THEN run_at ELSE $1 END,
                            ended_at = CASE WHEN \(poisoned) THEN $1 ELSE NULL END,
                            error = CASE WHEN \(poisoned)
                                THEN 'its worker ended or lost its lease while running it ' || (crashes + 1) || ' times (the last: '
                                    || coalesce(owner, '?') || ', attempt ' || attempt || '); failed for good, as poison'
                                WHEN ahead THEN 'its worker ' || coalesce(owner, '?')
                                    || ' ended or lost its lease while it waited there for a slot (attempt ' || attempt || ')'
                                ELSE 'its worker ' || coalesce(owner, '?') || ' ended or lost its lease during attempt ' || attempt END,
                            lost_ahead = lost_ahead OR ahead, ahead = false
                        WHERE state = \(SQLState.running) AND lease_until < $1
                        RETURNING id, state, kind, lane
                        """, binds: Self.binds(now, Int64(poisonLimit))), logger)
            var available = false
            var taken: [StoreEnd] = []
            var skipped: [StoreEnd] = []
            for row in rows {
                let (id, state, kind, lane) = try row.decode((Int64, Int, String, String?).self)
                taken.append(StoreEnd(id: DurableJobID(id), kind: kind, lane: lane, reason: .leaseExpired))
                if state == DurableJobState.failed.rawValue {
                    skipped += try await Self.skipDependents(of: id, now: now, connection, logger)
                } else {
                    available = true
                }
            }
            if available { try await Self.notify(connection, logger) }
            return taken + skipped
        }
    }

    public func cancel(_ id: DurableJobID, now: Int64) async throws -> DurableJobState? {
        try await transaction("cancelling") { connection, logger in try await Self.cancel(id, now: now, connection, logger) }
    }

    /// Cancels a pending job (skipping its dependents) or asks its worker to stop a running one;
    /// returns the state it was in, or nil when there is no such job.
    static func cancel(_ id: DurableJobID, now: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws -> DurableJobState? {
        let rows = try await connection.rows("SELECT state FROM sequencer.jobs WHERE id = \(id.rawValue) FOR UPDATE", logger)
        guard let raw = try rows.first?.decode(Int.self), let state = DurableJobState(rawValue: raw) else { return nil }
        switch state {
        case .waiting, .available:
            try await connection.rows(
                """
                UPDATE sequencer.jobs SET state = \(unescaped: SQLState.cancelled), ended_at = \(now), error_code = 'cancelled', error = 'cancelled before it ran'
                WHERE id = \(id.rawValue)
                """, logger)
            try await Self.skipDependents(of: id.rawValue, now: now, connection, logger)
            return .cancelled
        case .running:
            try await connection.rows("UPDATE sequencer.jobs SET cancel_requested = true WHERE id = \(id.rawValue)", logger)
            // Its worker hears it when this commits (several in one transaction are one).
            try await connection.rows("SELECT pg_notify(\(cancelChannel), '')", logger)
            return .running
        default:
            return state
        }
    }

    public func setLane(_ name: String, width: Int) async throws {
        guard width >= 1 else {
            throw QueueError(code: .invalidOption, location: description, message: "lane '\(name)' has width \(width); a lane's width must be at least 1")
        }
        _ = try await rows(
            "declaring lane '\(name)'",
            "INSERT INTO sequencer.lanes (name, width) VALUES (\(name), \(width)) ON CONFLICT (name) DO UPDATE SET width = excluded.width")
    }

    /// Deletes old ended jobs, but not a run's: those go with their run (``deleteRuns(keeping:workflow:)``).
    public func prune(endedBefore: Int64, includingFailures: Bool) async throws -> Int {
        let last = includingFailures ? DurableJobState.skipped.rawValue : DurableJobState.succeeded.rawValue
        let rows = try await rows(
            "pruning",
            """
            WITH gone AS (
                DELETE FROM sequencer.jobs WHERE \(unescaped: SQLState.hasEnded) AND state <= \(last) AND ended_at < \(endedBefore)
                    AND NOT EXISTS (SELECT 1 FROM sequencer.run_jobs WHERE run_jobs.job = jobs.id)
                RETURNING id
            ), edges AS (
                DELETE FROM sequencer.needs USING gone WHERE needs.need = gone.id
            )
            SELECT count(*) FROM gone
            """)
        return try rows.first?.decode(Int.self) ?? 0
    }

    // MARK: - Steps of transactions

    /// Wakes the processes listening on ``channel``, when this transaction commits (a
    /// notification is delivered only then, and several in one transaction are one).
    static func notify(_ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.rows("SELECT pg_notify(\(channel), '')", logger)
    }

    static func binds(_ values: Int64...) -> PostgresBindings {
        var bindings = PostgresBindings()
        for value in values { bindings.append(value) }
        return bindings
    }
}
