import Foundation
import Logging
import PostgresNIO
import SequencerPostgres

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
        return try await start()
    }

    /// Starts a server with `Scripts/postgres.sh start --watch <this process>`, waiting for
    /// the script on a thread of its own (a blocking wait on Swift's pool, two threads here,
    /// would hold up every test).
    private static func start() async throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sequencer-postgres-start-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let arguments = ["/bin/bash", root.appendingPathComponent("Scripts/postgres.sh").path, "start", "--watch", "\(getpid())"]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        guard posix_spawn(&pid, "/bin/bash", &actions, nil, argv, environ) == 0 else { throw StartFailed(status: -1, output: "cannot run bash") }
        let spawned = pid
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(spawned, &status, 0) == -1, errno == EINTR {}
                continuation.resume(returning: (status >> 8) & 0xff)
            }
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let prefix = "export \(variable)="
        guard status == 0, let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            throw StartFailed(status: status, output: text)
        }
        return String(line.dropFirst(prefix.count))
    }

    struct StartFailed: Error, CustomStringConvertible {
        let status: Int32
        let output: String
        var description: String { "Scripts/postgres.sh start failed (exit \(status)): \(output)" }
    }

    /// A new database, dropped after `body`: its URL.
    public static func withDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
        let server = try await url.value
        let name = "test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try await admin(server, "CREATE DATABASE \(name)")
        var components = URLComponents(string: server)
        components?.path = "/\(name)"
        let url = components?.string ?? server
        do {
            let result = try await body(url)
            try? await admin(server, "DROP DATABASE \(name) WITH (FORCE)")
            return result
        } catch {
            try? await admin(server, "DROP DATABASE \(name) WITH (FORCE)")
            throw error
        }
    }

    static let logger = Logger(label: "sequencer.postgres.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs statements on one connection of their own to `url`.
    public static func admin(_ url: String, _ statements: String...) async throws {
        let connection = try await PostgresConnection.connect(configuration: PostgresURL(url).connection, id: 1, logger: logger)
        do {
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}
