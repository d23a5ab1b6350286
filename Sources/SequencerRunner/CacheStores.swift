import Foundation
package import SequencerCache
import SequencerCacheHTTP
import SequencerPostgres

/// Opens a shared output cache from where a user says it is (`--cache`, `SEQUENCER_CACHE`): a
/// `postgres://` (or `postgresql://`) URL, an `http://` or `https://` Bazel HTTP cache, or a directory.
package enum CacheStores {
    /// How long a request to a cache server may take: `SEQUENCER_CACHE_TIMEOUT` seconds, else 30.
    static var deadline: Duration {
        let text = ProcessInfo.processInfo.environment["SEQUENCER_CACHE_TIMEOUT"] ?? ""
        return Double(text).flatMap { $0 > 0 ? Duration.milliseconds(Int64($0 * 1000)) : nil } ?? .seconds(30)
    }

    /// - Throws: ``CacheError`` when it cannot be opened, saying why.
    package static func open(_ location: String, readOnly: Bool) async throws -> any CacheStore {
        let scheme = location.range(of: "://").map { location[..<$0.lowerBound].lowercased() }
        if scheme == "postgres" || scheme == "postgresql" { return try await PostgresCache(url: location, readOnly: readOnly, deadline: deadline) }
        if scheme == "http" || scheme == "https" { return try HTTPCache(url: location, readOnly: readOnly, deadline: deadline) }
        return try CacheLocation.open(location, readOnly: readOnly)
    }
}
