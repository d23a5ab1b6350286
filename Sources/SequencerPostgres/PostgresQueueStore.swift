import Foundation
internal import Logging
internal import PostgresNIO
import Sequencer
public import SequencerQueue

/// A durable queue in a PostgreSQL database, shared by worker processes on any number of
/// machines: every guarantee of ``QueueStore`` holds across them.
///
/// Claims lock their rows `FOR UPDATE SKIP LOCKED`, so two workers never claim the same job
/// and never wait for each other's rows; a lane's row is locked while a claim counts its slots,
/// so a lane's width holds across the fleet. Ends are fenced by attempt and owner, and release
/// their dependents by a counter in the same transaction. A transaction that makes jobs
/// available notifies the channel `sequencer_jobs` (see ``wakeUps()``); one that asks a running
/// job to stop notifies `sequencer_cancels` (see ``cancelNotices()``).
///
/// Opening it creates the schema `sequencer` and its tables when they are not there (under an
/// advisory lock, so that workers starting at once do not race), and migrates an older schema.
/// A schema written by a newer Sequencer is refused with a ``QueueError`` and left untouched.
public final class PostgresQueueStore: QueueStore, CustomStringConvertible {
    /// The database's URL, with its password masked.
    public let description: String
    let client: PostgresClient
    /// postgres-nio's log, not shown: errors reach the caller as ``QueueError``s.
    static let logger = Logger(label: "sequencer.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    var logger: Logger { Self.logger }
    /// The pool's connections live as long as this task: ``close()`` ends it.
    private let pool: Task<Void, Never>
    /// The tasks that listen for ``wakeUps()``: each holds a connection, until ``close()``.
    private let listeners = Locked<[Task<Void, Never>]>([])

    /// The channel that transactions making jobs available notify.
    static let channel = "sequencer_jobs"
    /// The channel that transactions asking running jobs to stop notify.
    static let cancelChannel = "sequencer_cancels"

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`) and
    /// creates or migrates the queue's schema.
    /// - Throws: ``QueueError`` naming the URL (its password masked) and the cause, when the
    ///   URL is wrong, the server cannot be reached or refuses the user, the user may not create
    ///   the schema, or the schema is newer than this Sequencer.
    public init(url: String) async throws {
        let parsed = try PostgresURL(url)
        description = parsed.description
        // The first connection is made alone: it fails at once with the server's reason, where
        // the pool would keep trying for a minute.
        let logger = Self.logger
        let first: PostgresConnection
        do {
            first = try await PostgresConnection.connect(configuration: parsed.connection, id: 0, logger: logger)
        } catch {
            throw QueueError(code: .database, location: parsed.description, message: "cannot connect: \(Self.describe(error))")
        }
        do {
            try await Self.prepareSchema(first, location: parsed.description, logger: logger)
        } catch {
            _ = try? await first.close()
            throw Self.failure(error, location: parsed.description, doing: "creating the queue's schema")
        }
        _ = try? await first.close()
        let client = PostgresClient(configuration: parsed.configuration, backgroundLogger: logger)
        self.client = client
        pool = Task { await client.run() }
    }

    /// Ends the pool's connections. The store cannot be used after.
    public func close() async throws {
        for listener in listeners.withLock({ $0 }) { listener.cancel() }
        pool.cancel()
        await pool.value
    }

    deinit { pool.cancel() }

    // MARK: - Database access

    /// Runs `body` in one transaction on a connection of the pool (`READ COMMITTED`: each
    /// statement sees what was committed before it started, and an UPDATE re-checks its WHERE
    /// on a row that changed meanwhile).
    ///
    /// A transaction that the server ended to break a deadlock is run again, a few times: two
    /// batches of ends may update shared dependents in opposite orders.
    func transaction<T: Sendable>(
        _ doing: String, _ body: @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        do {
            return try await PostgresTransaction.run(client, isolation: "READ COMMITTED", logger: logger, body)
        } catch {
            throw Self.failure(error, location: description, doing: doing)
        }
    }

    /// Whether the connection is still usable after `error`, so that a ROLLBACK can end its
    /// transaction: after an ordinary server error, not after a FATAL one (the server ends the
    /// connection: 57P01 on a restart), a connection error (class 08) or a lost connection. A
    /// ROLLBACK sent on a connection that is closing is never answered (postgres-nio), and the
    /// worker's turn that sent it waited for good while its heartbeat renewed its leases.
    static func connectionSurvives(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return true }
        guard error.code == .server, let info = error.serverInfo else { return false }
        let severity = info[.severity] ?? info[.localizedSeverity] ?? ""
        let state = info[.sqlState] ?? ""
        return severity != "FATAL" && severity != "PANIC" && !state.hasPrefix("57P") && !state.hasPrefix("08")
    }

    /// Runs one statement outside a transaction and returns its rows.
    func rows(_ doing: String, _ query: PostgresQuery) async throws -> [PostgresRow] {
        Self.statements?.withLock { $0 += 1 }
        do {
            return try await client.query(query, logger: logger).collect()
        } catch {
            throw Self.failure(error, location: description, doing: doing)
        }
    }

    static func failure(_ error: any Error, location: String, doing: String) -> any Error {
        if error is QueueError || error is CancellationError { return error }
        return QueueError(code: .database, location: location, message: "\(doing) failed: \(describe(error))")
    }

    /// What went wrong, in words: the server's message and SQLSTATE, or the connection's
    /// error. (A `PSQLError`'s own description hides them, lest they leak.)
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let info = error.serverInfo, let message = info[.message] {
            var text = message
            if let detail = info[.detail] { text += " (\(detail))" }
            if let state = info[.sqlState] { text += " [SQLSTATE \(state)]" }
            return text
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}

extension PostgresQueueStore {
    /// While set, counts the statements sent to the server by this task and the tasks it
    /// starts (each one round trip): tests bound them per job.
    @TaskLocal static var statements: Locked<Int>?
}

extension PostgresConnection {
    /// Runs one statement and returns its rows.
    @discardableResult
    func rows(_ query: PostgresQuery, _ logger: Logger) async throws -> [PostgresRow] {
        PostgresQueueStore.statements?.withLock { $0 += 1 }
        return try await self.query(query, logger: logger).collect()
    }
}

extension PostgresQueueStore {
    /// An element each time a transaction that made jobs available commits, in any process
    /// (`LISTEN sequencer_jobs`, on a connection of the pool held while the stream is consumed),
    /// and one once listening starts or starts again after a lost connection: what was
    /// notified meanwhile is looked for then. Notifications are hints; the workers' poll stays.
    public func wakeUps() -> AsyncStream<Void>? { listen(on: Self.channel) }

    /// An element each time a transaction that asked a running job to stop commits, in any
    /// process (`LISTEN sequencer_cancels`), and one once listening starts or starts again:
    /// the worker's heartbeat then asks which of its jobs to stop. The heartbeat's answer stays
    /// the rule; a lost notification only delays a stop to the next heartbeat.
    public func cancelNotices() -> AsyncStream<Void>? { listen(on: Self.cancelChannel) }

    /// `LISTEN channel` on a connection of the pool, with reconnection, until the stream's
    /// consumer stops or the store is closed.
    private func listen(on channel: String) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let client = client
        let pool = pool
        let listener = Task {
            while !Task.isCancelled, !pool.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: channel) { notifications in
                            continuation.yield()
                            for try await _ in notifications { continuation.yield() }
                        }
                    }
                } catch {
                    // The connection was lost (or the store closed): listen again after a pause.
                    try? await Task.sleep(for: .seconds(1))
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in listener.cancel() }
        listeners.withLock { listeners in
            listeners.removeAll { $0.isCancelled }
            listeners.append(listener)
        }
        return stream
    }
}
