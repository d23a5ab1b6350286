#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import PostgresTestSupport

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
