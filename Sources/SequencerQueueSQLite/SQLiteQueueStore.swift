import Foundation
internal import GRDB
import Sequencer
internal import SequencerSQLite

/// A durable queue in one SQLite file (WAL mode): the embedded default, with no server. Several
/// processes on one machine may work the same file; a claim takes SQLite's write lock, so two
/// never claim the same job.
///
/// Opening it creates the file when there is none, and migrates an older schema forward. A file
/// written by a newer Sequencer, or one that is damaged or is not a queue, is refused with a
/// ``QueueError`` and left as it is.
public final class SQLiteQueueStore: QueueStore {
    /// The database file.
    public let path: String
    let database: DatabaseQueue

    /// Opens the queue at `path`.
    /// - Parameters:
    ///   - path: The file; a missing one becomes a new queue.
    ///   - synchronous: `NORMAL` (the default) survives a process killed at any moment; a power
    ///     loss may undo the last commits, never corrupt the file. `FULL` survives a power loss
    ///     too, at the cost of a sync per commit.
    public init(path: String, synchronous: Synchronous = .normal) throws {
        self.path = path
        if let reason = Damage.marked(path) { throw StoreFile.damaged(path: path, reason: reason, marking: false) }
        try StoreFile.checkHeader(path)
        let existed = FileManager.default.fileExists(atPath: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "sequencer-queue"
        let pragma = "PRAGMA synchronous = \(synchronous.rawValue)"
        configuration.prepareDatabase { db in try db.execute(sql: pragma) }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreFile.error(Damage.isDamage(error) ? .damaged(Self.describe(error)) : .unusable(Self.describe(error)), path: path)
        }
        if existed { try StoreFile.checkForDamage(database, path: path) }
        try StoreFile.open(database, path: path)
    }

    /// How hard SQLite works to keep commits through a crash of the machine.
    public enum Synchronous: String, Sendable {
        case normal = "NORMAL"
        case full = "FULL"
    }

    // MARK: - Writing

    public func enqueue(_ jobs: [NewDurableJob], now: Int64) async throws -> [DurableJobID] {
        let path = path
        return try await write { db in
            var ids: [DurableJobID] = []
            ids.reserveCapacity(jobs.count)
            for (position, job) in jobs.enumerated() {
                ids.append(try Self.insert(job.resolvingBatchNeeds(ids, position: position, location: path), now: now, path: path, db))
            }
            return ids
        }
    }

    public func claim(kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64) async throws -> [ClaimedJob] {
        guard limit > 0, !kinds.isEmpty else { return [] }
        return try await write { db in
            try Self.claim(kinds: kinds, limit: limit, slots: slots, owner: owner, now: now, leaseUntil: leaseUntil, db)
        }
    }

    public func finish(_ ends: [AttemptEnd], now: Int64) async throws -> [Bool] {
        guard !ends.isEmpty else { return [] }
        return try await write { db in try ends.map { try Self.finish($0, now: now, db) } }
    }

    public func finishAndClaim(
        _ ends: [AttemptEnd], kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64
    ) async throws -> StoreTurn {
        guard !ends.isEmpty || (limit > 0 && !kinds.isEmpty) else { return StoreTurn() }
        return try await write { db in
            var turn = StoreTurn()
            turn.recorded = try ends.map { try Self.finish($0, now: now, db, skipped: &turn.skipped) }
            guard limit > 0, !kinds.isEmpty else { return turn }
            turn.claimed = try Self.claim(kinds: kinds, limit: limit, slots: slots, owner: owner, now: now, leaseUntil: leaseUntil, db)
            return turn
        }
    }

    public func heartbeat(owner: String, jobs: [DurableJobID], leaseUntil: Int64, now: Int64) async throws -> [DurableJobID] {
        guard !jobs.isEmpty else { return [] }
        let ids = Self.jsonArray(jobs.map(\.rawValue))
        return try await write { db in
            let mine = "state = \(SQLState.running) AND owner = ? AND id IN (SELECT value FROM json_each(?))"
            try db.execute(sql: "UPDATE jobs SET lease_until = ? WHERE \(mine)", arguments: [leaseUntil, owner, ids])
            let held = try Row.fetchAll(db, sql: "SELECT id, cancel_requested FROM jobs WHERE \(mine)", arguments: [owner, ids])
            var keep = Set<Int64>()
            for row in held where (row[1] as Int64) == 0 { keep.insert(row[0]) }
            return jobs.filter { !keep.contains($0.rawValue) }
        }
    }

    public func takeBack(now: Int64, poisonLimit: Int) async throws -> [StoreEnd] {
        try await write { db in
            let expired = try Row.fetchAll(
                db, sql: "SELECT id, crashes, owner, attempt, ahead, kind, lane FROM jobs WHERE state = \(SQLState.running) AND lease_until < ?",
                arguments: [now])
            var taken: [StoreEnd] = []
            var skipped: [StoreEnd] = []
            for row in expired {
                taken.append(StoreEnd(id: DurableJobID(row[0] as Int64), kind: row[5], lane: row[6], reason: .leaseExpired))
                let id: Int64 = row[0]
                let owner: String = row[2] ?? "?"
                let attempt: Int = row[3]
                // Claimed ahead: it waited in its worker for a slot, and is not counted.
                let ahead = (row[4] as Int) != 0
                let crashes = (row[1] as Int) + (ahead ? 0 : 1)
                if !ahead, crashes >= poisonLimit {
                    let message = "its worker ended or lost its lease while running it \(crashes) times (the last: \(owner), attempt \(attempt)); failed for good, as poison"
                    try db.execute(
                        sql: """
                            UPDATE jobs SET state = \(SQLState.failed), crashes = ?, owner = NULL, lease_until = NULL, ended_at = ?,
                            error_code = 'crashed', error = ? WHERE id = ?
                            """,
                        arguments: [crashes, now, message, id])
                    skipped += try Self.skipDependents(of: id, now: now, db)
                } else {
                    let message = ahead
                        ? "its worker \(owner) ended or lost its lease while it waited there for a slot (attempt \(attempt))"
                        : "its worker \(owner) ended or lost its lease during attempt \(attempt)"
                    try db.execute(
                        sql: """
                            UPDATE jobs SET state = \(SQLState.available), crashes = ?, owner = NULL, lease_until = NULL, run_at = ?,
                            error_code = 'crashed', error = ?, lost_ahead = lost_ahead OR ahead, ahead = 0 WHERE id = ?
                            """,
                        arguments: [crashes, now, message, id])
                }
            }
            return taken + skipped
        }
    }

    public func cancel(_ id: DurableJobID, now: Int64) async throws -> DurableJobState? {
        try await write { db in try Self.cancel(id.rawValue, now: now, db) }
    }

    public func setLane(_ name: String, width: Int) async throws {
        guard width >= 1 else {
            throw QueueError(code: .invalidOption, location: path, message: "lane '\(name)' has width \(width); a lane's width must be at least 1")
        }
        try await write { db in
            try db.execute(
                sql: "INSERT INTO lanes (name, width) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET width = excluded.width",
                arguments: [name, width])
        }
    }

    public func prune(endedBefore: Int64, includingFailures: Bool) async throws -> Int {
        try await write { db in
            let states = includingFailures ? SQLState.hasEnded : "state = \(SQLState.succeeded)"
            // A run's jobs stay as long as their run (RunStore.deleteRuns).
            let ended = "\(states) AND ended_at < ? AND id NOT IN (SELECT job FROM run_jobs)"
            try db.execute(sql: "DELETE FROM needs WHERE need IN (SELECT id FROM jobs WHERE \(ended))", arguments: [endedBefore])
            try db.execute(sql: "DELETE FROM jobs WHERE \(ended)", arguments: [endedBefore])
            return db.changesCount
        }
    }

    public func close() async throws {
        try await write(asTransaction: false) { db in _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    // MARK: - Reading

    public func job(_ id: DurableJobID) async throws -> DurableJob? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns), output FROM jobs WHERE id = ?", arguments: [id.rawValue]).map(Self.job)
        }
    }

    public func jobs(in states: [DurableJobState], after: DurableJobID?, limit: Int) async throws -> [DurableJob] {
        guard !states.isEmpty else { return [] }
        let list = states.map { String($0.rawValue) }.joined(separator: ",")
        return try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.columns), NULL FROM jobs WHERE state IN (\(list)) AND id > ? ORDER BY id LIMIT ?",
                arguments: [after?.rawValue ?? 0, limit]
            ).map(Self.job)
        }
    }

    public func counts() async throws -> [DurableJobState: Int] {
        try await read { db in
            var counts: [DurableJobState: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, count(*) FROM jobs GROUP BY state") {
                if let state = DurableJobState(rawValue: row[0]) { counts[state] = row[1] }
            }
            return counts
        }
    }

    public func nextRunTime(kinds: [String], after now: Int64) async throws -> Int64? {
        guard !kinds.isEmpty else { return nil }
        return try await read { db in
            try Int64.fetchOne(
                db, sql: "SELECT min(run_at) FROM jobs WHERE state = \(SQLState.available) AND run_at > ? AND kind IN \(Self.placeholders(kinds.count))",
                arguments: [now] + StatementArguments(kinds))
        }
    }

    /// Checks the whole file (`PRAGMA integrity_check`); returns the problems found.
    public func integrityProblems() throws -> [String] {
        let problems = try database.read { db in try Damage.integrityCheck(db) }
        if !problems.isEmpty { Damage.mark(path, reason: Damage.summary(problems)) }
        return problems
    }

    /// Copies what still reads of the damaged queue file at `path` into a new file beside it
    /// (`PATH.recovered`), table by table (see `VersionedFile.salvage`); the damaged file is
    /// opened read-only and left as it is.
    /// - Returns: Where the new file is, the rows copied by table, and what was lost, in words.
    /// - Throws: ``QueueError`` when the new file exists already, or nothing can be read.
    package static func recover(from path: String) throws -> (path: String, copied: [String: Int], lost: [String]) {
        let target = StoreFile.recoveredPath(path)
        guard !FileManager.default.fileExists(atPath: target) else {
            throw QueueError(code: .invalidOption, location: target, message: "a recovered copy is here already; move it away first")
        }
        let file = VersionedFile(applicationID: QueueSchema.applicationID, current: QueueSchema.current, migrator: QueueSchema.migrator())
        do {
            let salvage = try file.salvage(from: path, into: target)
            return (target, Dictionary(salvage.copied, uniquingKeysWith: +), salvage.lost)
        } catch {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: target + suffix) }
            throw QueueError(code: .unreadable, location: path, message: "nothing could be recovered: \(error)")
        }
    }

    /// The schema version of the file, after opening (and migrating) it.
    public func schemaVersion() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
    }

    // MARK: - Database access

    func write<T: Sendable>(asTransaction: Bool = true, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        // Nothing is written into a file found damaged, by this process or another.
        if let reason = Damage.marked(path) { throw StoreFile.damaged(path: path, reason: reason, marking: false) }
        do {
            guard asTransaction else { return try await database.writeWithoutTransaction(body) }
            // Claims and ends read, then write: the transaction takes the write lock from the
            // start, so two processes never both read a job as available and both claim it.
            return try await database.writeWithoutTransaction { db in
                var result: Result<T, any Error>?
                try db.inTransaction(.immediate) {
                    result = .success(try body(db))
                    return .commit
                }
                guard let result else { throw QueueError(code: .database, location: path, message: "a transaction ended without a result") }
                return try result.get()
            }
        } catch {
            throw storeError(error, doing: "writing")
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await database.read(body)
        } catch {
            throw storeError(error, doing: "reading")
        }
    }

    /// What the store throws for `error`, met while `doing` ("reading") the queue: its own errors
    /// and a cancellation as they are, damage as damage (the file is marked), anything else as
    /// a database error.
    private func storeError(_ error: any Error, doing: String) -> any Error {
        if error is QueueError || error is CancellationError { return error }
        if Damage.isDamage(error) { return StoreFile.damaged(path: path, reason: Self.describe(error)) }
        return QueueError(code: .database, location: path, message: "\(doing) the queue failed: \(Self.describe(error))")
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? error.resultCode.description }
        return "\(error)"
    }

    static func placeholders(_ count: Int) -> String {
        "(" + Array(repeating: "?", count: count).joined(separator: ",") + ")"
    }
}
