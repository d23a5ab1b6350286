import Foundation
import Logging
import PostgresNIO
import Testing
@testable import SequencerPostgres

/// The PostgreSQL server the tests use: `SEQUENCER_TEST_POSTGRES_URL` when it is set (CI starts
/// one with `Scripts/postgres.sh`), or else one this test process starts once with that script,
/// from Debian's binaries, and that stops when this process ends (the script watches it). Each
/// test gets a database of its own, so tests run in parallel.
enum TestServer {
    static let variable = "SEQUENCER_TEST_POSTGRES_URL"

    /// Whether PostgreSQL tests can run: a server is given, or the binaries to start one exist.
    /// Only when neither holds are they skipped (see ``skipReason``).
    static let available: Bool = ProcessInfo.processInfo.environment[variable] != nil || binariesExist

    static let skipReason: Comment = "no PostgreSQL: neither SEQUENCER_TEST_POSTGRES_URL nor initdb and pg_ctl under /usr/lib/postgresql/*/bin (install Debian's postgresql package)"

    static var binariesExist: Bool {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.contains { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/pg_ctl") }
    }

    /// The server's URL, to its `postgres` database.
    static let url = Task<String, any Error> {
        if let url = ProcessInfo.processInfo.environment[variable] { return url }
        return try await start().url
    }

    /// Starts a server with `Scripts/postgres.sh start --watch <this process>` (and `extra`
    /// options of the script): its URL (to its `postgres` database) and data directory.
    static func start(_ extra: [String] = []) async throws -> (url: String, directory: String) {
        let text = try await script(["start", "--watch", "\(getpid())"] + extra)
        func value(_ name: String) -> String? {
            let prefix = "export \(name)="
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }
        guard let url = value(variable), let directory = value("SEQUENCER_TEST_POSTGRES_DIR") else {
            throw StartFailed(output: text)
        }
        return (url, directory)
    }

    /// Runs `Scripts/postgres.sh` with `arguments` and returns its output; throws unless it exits 0.
    static func script(_ arguments: [String]) async throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return try await runCommand(["/bin/bash", root.appendingPathComponent("Scripts/postgres.sh").path] + arguments)
    }

    struct StartFailed: Error, CustomStringConvertible {
        let output: String
        var description: String { "Scripts/postgres.sh start printed no URL: \(output)" }
    }

    /// A new database, dropped after `body`: its URL.
    static func withDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
        let url = try await createDatabase()
        do {
            let result = try await body(url)
            await dropDatabase(url)
            return result
        } catch {
            await dropDatabase(url)
            throw error
        }
    }

    /// A new database on the shared server: its URL.
    static func createDatabase() async throws -> String {
        let server = try await url.value
        let name = "test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try await admin(server, "CREATE DATABASE \(name)")
        var components = URLComponents(string: server)
        components?.path = "/\(name)"
        return components?.string ?? server
    }

    /// Drops a database that ``createDatabase()`` made, closing its connections.
    static func dropDatabase(_ database: String) async {
        guard let server = try? await url.value, let name = URLComponents(string: database)?.path.dropFirst(), name.hasPrefix("test_") else { return }
        try? await admin(server, "DROP DATABASE \(name) WITH (FORCE)")
    }

    static let logger = Logger(label: "sequencer.postgres.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs statements on one connection of their own to `url`.
    static func admin(_ url: String, _ statements: String...) async throws {
        let connection = try await PostgresConnection.connect(configuration: PostgresURL(url).connection, id: 1, logger: logger)
        do {
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// The first column of the first row of `query` (a count), on a connection of its own to `url`.
    static func number(_ url: String, _ query: String) async throws -> Int {
        let connection = try await PostgresConnection.connect(configuration: PostgresURL(url).connection, id: 1, logger: logger)
        do {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: query), logger: logger).collect()
            try await connection.close()
            return try rows.first?.decode(Int.self) ?? 0
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
