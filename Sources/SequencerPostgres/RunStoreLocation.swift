import Foundation
package import SequencerQueue

/// The store a `--queue` location names, as `sequencer` and `sequencer-serve` read it: a
/// PostgreSQL URL (`postgres://user:password@host:port/database`), `sqlite:PATH`, or a path.
package enum RunStoreLocation {
    /// Whether `location` names a PostgreSQL database rather than an SQLite file.
    package static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    /// The SQLite file `location` names (`sqlite:PATH`, or the path itself).
    package static func path(_ location: String) -> String {
        location.hasPrefix("sqlite:") ? String(location.dropFirst("sqlite:".count)) : location
    }

    /// Opens the store at `location`.
    /// - Parameter create: whether a missing file becomes a new queue (to submit or work); to
    ///   read runs, a missing file is an error. (A PostgreSQL database gets the queue's schema
    ///   either way: it is made in one transaction, and an empty queue has no runs.)
    /// - Throws: ``QueueError``, saying why it cannot be opened.
    package static func open(_ location: String, create: Bool) async throws -> any RunStore {
        if isPostgres(location) { return try await PostgresQueueStore(url: location) }
        let path = path(location)
        guard create || FileManager.default.fileExists(atPath: path) else {
            throw QueueError(code: .unreadable, location: path, message: "there is no queue file here")
        }
        return try SQLiteQueueStore(path: path)
    }
}
