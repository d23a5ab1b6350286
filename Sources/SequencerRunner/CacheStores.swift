package import SequencerCache
import SequencerCacheHTTP
import SequencerPostgres

/// Opens a shared output cache from where a user says it is (`--cache`, `SEQUENCER_CACHE`): a
/// `postgres://` (or `postgresql://`) URL, an `http://` or `https://` Bazel HTTP cache, or a directory.
package enum CacheStores {
    /// - Throws: ``CacheError`` when it cannot be opened, saying why.
    package static func open(_ location: String, readOnly: Bool) async throws -> any CacheStore {
        let scheme = location.range(of: "://").map { location[..<$0.lowerBound].lowercased() }
        if scheme == "postgres" || scheme == "postgresql" { return try await PostgresCache(url: location, readOnly: readOnly) }
        if scheme == "http" || scheme == "https" { return try HTTPCache(url: location, readOnly: readOnly) }
        return try CacheLocation.open(location, readOnly: readOnly)
    }
}
