import Foundation
import Logging
import PostgresNIO
import SequencerPostgres
import SequencerTestHelpers

/// The PostgreSQL server the tests use: `SEQUENCER_TEST_POSTGRES_URL` when it is set (CI starts
/// one with `Scripts/postgres.sh`), or else one this test process starts once with that script,
/// from Debian's binaries, and that stops when this process ends (the script watches it). Each
/// test gets a database of its own, so tests run in parallel.
public enum TestServer {
    public static let variable = "SEQUENCER_TEST_POSTGRES_URL"

    /// Whether PostgreSQL tests can run: a server is given, or the binaries to start one exist.
    /// Only when neither holds are they skipped (see ``skipMessage``).
    public static let available: Bool = ProcessInfo.processInfo.environment[variable] != nil || binariesExist

    public static let skipMessage = "no PostgreSQL: neither SEQUENCER_TEST_POSTGRES_URL nor initdb and pg_ctl under /usr/lib/postgresql/*/bin (install Debian's postgresql package)"

    public static var binariesExist: Bool {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.contains { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/pg_ctl") }
    }

    /// The server's URL, to its `postgres` database.
    public static let url = Task<String, any Error> {
        if let url = ProcessInfo.processInfo.environment[variable] { return url }
        return try await start().url
    }

    /// Starts a server with `Scripts/postgres.sh start --watch <this process>` (and `extra`
    /// options of the script): its URL (to its `postgres` database) and data directory.
    public static func start(_ extra: [String] = []) async throws -> (url: String, directory: String) {
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
    public static func script(_ arguments: [String]) async throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try await runCommand(["/bin/bash", root.appendingPathComponent("Scripts/postgres.sh").path] + arguments)
    }

    struct StartFailed: Error, CustomStringConvertible {
        let output: String
        var description: String { "Scripts/postgres.sh start printed no URL: \(output)" }
    }

    /// A new database, dropped after `body`: its URL.
    public static func withDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
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
    public static func createDatabase() async throws -> String {
        let server = try await url.value
        let name = "test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try await admin(server, "CREATE DATABASE \(name)")
        var components = URLComponents(string: server)
        components?.path = "/\(name)"
        return components?.string ?? server
    }

    /// Drops a database that ``createDatabase()`` made, closing its connections.
    public static func dropDatabase(_ database: String) async {
        guard let server = try? await url.value, let name = URLComponents(string: database)?.path.dropFirst(), name.hasPrefix("test_") else { return }
        try? await admin(server, "DROP DATABASE \(name) WITH (FORCE)")
    }

    static let logger = Logger(label: "sequencer.postgres.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs statements on one connection of their own to `url`.
    public static func admin(_ url: String, _ statements: String...) async throws {
        try await admin(url, statements)
    }

    /// Runs statements on one connection of their own to `url`.
    public static func admin(_ url: String, _ statements: [String]) async throws {
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
    public static func number(_ url: String, _ query: String) async throws -> Int {
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

/// Runs `arguments` (a program's absolute path first) to its end, its stdout and stderr in one
/// text; throws unless it exits 0. Waits on a thread of its own (a blocking wait on Swift's pool,
/// two threads here, would hold up every test).
public func runCommand(_ arguments: [String]) async throws -> String {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("sequencer-test-command-\(UUID().uuidString).txt").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // Nothing else of this process's: `postgres.sh start --watch` leaves a watcher running
    // until this process ends, and a pipe of another test's `sequencer` that it inherited
    // would never reach its end (that test's read hung, with its process long gone).
    closeInheritedDescriptors(&actions)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid = pid_t()
    guard let program = arguments.first, posix_spawn(&pid, program, &actions, nil, argv, environ) == 0 else {
        throw CommandFailed(arguments: arguments, status: -1, output: "cannot start it")
    }
    let spawned = pid
    let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(spawned, &status, 0) == -1, errno == EINTR {}
            continuation.resume(returning: (status >> 8) & 0xff)
        }
    }
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    guard status == 0 else { throw CommandFailed(arguments: arguments, status: status, output: text) }
    return text
}

public struct CommandFailed: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let output: String
    public var description: String { "\(arguments.joined(separator: " ")) failed (exit \(status)): \(output)" }
}
