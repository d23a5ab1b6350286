import Foundation

/// Where a cache is, as a user writes it (`--cache`, `SEQUENCER_CACHE`): a directory path, or a
/// URL for the backends to come (`postgres://…`, `http://…`, refused with a clear error until
/// they exist).
public enum CacheLocation {
    /// Opens the cache at `location`.
    /// - Throws: ``CacheError`` when it cannot be opened, saying why.
    public static func open(_ location: String, readOnly: Bool = false) throws -> any CacheStore {
        let text = location.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw CacheError(.notACache, location: "''", "a cache's location cannot be empty") }
        if let scheme = text.range(of: "://").map({ String(text[..<$0.lowerBound]).lowercased() }) {
            throw CacheError(.notACache, location: text, "\(scheme):// caches are not supported by this version; give a directory")
        }
        let expanded = (text as NSString).expandingTildeInPath
        return try DirectoryCache(path: expanded, readOnly: readOnly)
    }
}
