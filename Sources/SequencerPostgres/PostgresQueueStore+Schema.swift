internal import Logging
internal import PostgresNIO
import SequencerQueue

extension PostgresQueueStore {
    /// Creates the schema, or migrates it to this build's version, in one transaction under an
    /// advisory lock. Refuses a schema from a newer Sequencer, before changing anything.
    ///
    /// The lock is taken before the transaction begins: a transaction that began before
    /// another process committed the schema could still see it missing in its catalog caches.
    static func prepareSchema(_ connection: PostgresConnection, location: String, logger: Logger) async throws {
        if let version = try await schemaVersion(connection, logger) {
            try refuseNewer(version, location: location)
            if version == PostgresSchema.current { return }
        }
        try await connection.rows("SELECT pg_advisory_lock(\(PostgresSchema.lockKey))", logger)
        try await connection.rows("BEGIN", logger)
        do {
            // Read again under the lock: another process may have made it meanwhile.
            let version = try await schemaVersion(connection, logger) ?? 0
            try refuseNewer(version, location: location)
            if version == 0 {
                try await connection.rows("CREATE SCHEMA IF NOT EXISTS sequencer", logger)
                try await connection.rows(
                    """
                    CREATE TABLE IF NOT EXISTS sequencer.migrations (
                        version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                    )
                    """, logger)
            }
            for next in version..<PostgresSchema.current {
                for statement in PostgresSchema.migrations[next] {
                    try await connection.rows(PostgresQuery(unsafeSQL: statement), logger)
                }
                try await connection.rows("INSERT INTO sequencer.migrations (version) VALUES (\(next + 1))", logger)
            }
            try await connection.rows("COMMIT", logger)
        } catch {
            _ = try? await connection.rows("ROLLBACK", logger)
            _ = try? await connection.rows("SELECT pg_advisory_unlock(\(PostgresSchema.lockKey))", logger)
            throw error
        }
        try await connection.rows("SELECT pg_advisory_unlock(\(PostgresSchema.lockKey))", logger)
    }

    /// The schema's version; nil when there is none.
    static func schemaVersion(_ connection: PostgresConnection, _ logger: Logger) async throws -> Int? {
        // The catalog read as a table, with this statement's snapshot (`to_regclass` may answer
        // from a stale cache).
        let exists = try await connection.rows(
            """
            SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                           WHERE n.nspname = 'sequencer' AND c.relname = 'migrations')
            """, logger)
        guard try exists.first?.decode(Bool.self) == true else { return nil }
        let rows = try await connection.rows("SELECT coalesce(max(version), 0) FROM sequencer.migrations", logger)
        return try rows.first?.decode(Int.self) ?? 0
    }

    static func refuseNewer(_ version: Int, location: String) throws {
        guard version > PostgresSchema.current else { return }
        throw QueueError(
            code: .newerVersion, location: location,
            message: "the queue's schema 'sequencer' has version \(version), newer than this Sequencer knows (\(PostgresSchema.current)); use a newer Sequencer; the database was left untouched")
    }
}
