internal import Logging
internal import PostgresNIO

/// One transaction on a connection of a pool, as the queue's store and the cache both run them.
enum PostgresTransaction {
    /// Runs `body` in a transaction at `isolation`, committed when it returns and rolled back when
    /// it throws. A transaction the server ended to break a deadlock (40P01), or because another
    /// changed what it read (40001, under `REPEATABLE READ`: a look-up that marks a blob used while
    /// `gc` removes it), is run again, up to five times in all: only another try can settle it.
    static func run<T: Sendable>(
        _ client: PostgresClient, isolation: String, logger: Logger, _ body: @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        var tries = 0
        while true {
            tries += 1
            do {
                return try await client.withConnection { connection in
                    try await connection.rows(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"), logger)
                    do {
                        let value = try await body(connection, logger)
                        try await connection.rows("COMMIT", logger)
                        return value
                    } catch {
                        if PostgresQueueStore.connectionSurvives(error) { _ = try? await connection.rows("ROLLBACK", logger) }
                        throw error
                    }
                }
            } catch let error as PSQLError where tries < 5 && ["40P01", "40001"].contains(error.serverInfo?[.sqlState] ?? "") {
                continue
            }
        }
    }
}
