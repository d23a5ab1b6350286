import Foundation

/// Where a directory cache is, as a user writes it (`--cache`, `SEQUENCER_CACHE`). A URL names
/// another backend: the command line opens `postgres://` ones (`PostgresCache`, in
/// `SequencerPostgres`); others are refused with a clear error.
public enum CacheLocation {
    /// Opens the directory cache at `location`.
    /// - Throws: ``CacheError`` when it cannot be opened, saying why.
    public static func open(_ location: String, readOnly: Bool = false) throws -> any CacheStore {
        let text = location.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw CacheError(.notACache, location: "''", "a cache's location cannot be empty") }
        if let scheme = text.range(of: "://").map({ String(text[..<$0.lowerBound]).lowercased() }) {
            throw CacheError(.notACache, location: text, "\(scheme):// is not a cache this opens; give a directory, or a postgres:// URL")
        }
        let expanded = (text as NSString).expandingTildeInPath
        return try DirectoryCache(path: expanded, readOnly: readOnly)
    }
}
