#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// A PostgreSQL server of one test's own, not the shared one: the fault tests restart it and
/// cut workers off from it. Started with `Scripts/postgres.sh start --watch <this process>`, so
/// it stops with this process if ``stop()`` is never reached.
struct OwnServer {
    /// Its `postgres` database (on 127.0.0.1).
    let url: String
    /// Its directory (`Scripts/postgres.sh`'s), the data directory inside.
    let directory: String

    /// Starts one; `listen`: an address it also listens on, and lets that network in.
    static func start(listen: String? = nil) async throws -> OwnServer {
        let (url, directory) = try await TestServer.start(listen.map { ["--listen", $0] } ?? [])
        return OwnServer(url: url, directory: directory)
    }

    /// `pg_ctl restart -m fast`: every connection is cut; returns once it accepts connections again.
    func restart() async throws {
        _ = try await TestServer.script(["restart", directory])
    }

    /// Stops it and removes its data.
    func stop() async {
        _ = try? await TestServer.script(["stop", directory])
    }

    /// `url` with its host replaced by `host`.
    func url(host: String) -> String {
        var components = URLComponents(string: url)
        components?.host = host
        return components?.string ?? url
    }
}

/// Runs `arguments` (a program's absolute path first) to its end, its stdout and stderr in one
/// text; throws unless it exits 0. Waits on a thread of its own (a blocking wait on Swift's pool,
/// two threads here, would hold up every test).
func runCommand(_ arguments: [String]) async throws -> String {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("sequencer-test-command-\(UUID().uuidString).txt").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
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

struct CommandFailed: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let output: String
    var description: String { "\(arguments.joined(separator: " ")) failed (exit \(status)): \(output)" }
}
