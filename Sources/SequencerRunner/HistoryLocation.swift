import Foundation
public import SequencerHistory
import SequencerJournal
import SequencerPostgres
public import SequencerQueue
import SequencerQueueSQLite

/// Where runs are kept, as a command line or a page names it: a journal file, or a durable
/// queue (a PostgreSQL URL `postgres://user:password@host:port/database`, `sqlite:PATH`, or a
/// path). It opens the place as a history to read runs from, and a queue as its store.
public enum HistoryLocation: Sendable, Hashable {
    /// The journal at a path.
    case journal(String)
    /// A durable queue: a PostgreSQL URL, `sqlite:PATH`, or an SQLite file's path.
    case queue(String)

    /// Whether it names a PostgreSQL database rather than a file.
    public var isPostgres: Bool {
        guard case .queue(let text) = self else { return false }
        return text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The file it names (`sqlite:PATH`, or the path itself); nil for a PostgreSQL URL.
    public var path: String? {
        switch self {
        case .journal(let path): path
        case .queue(let text): isPostgres ? nil : text.hasPrefix("sqlite:") ? String(text.dropFirst("sqlite:".count)) : text
        }
    }

    /// The location as it may be printed: a URL's password masked
    /// (`postgres://ci:***@db.internal/builds`).
    public var shown: String {
        switch self {
        case .journal(let path): path
        case .queue(let text): PostgresURL.mask(text)
        }
    }

    /// The queue's store.
    /// - Parameter create: Whether a missing file becomes a new queue (to submit or work); to
    ///   read runs, a missing file is an error. (A PostgreSQL database gets the queue's schema
    ///   either way: it is made in one transaction, and an empty queue has no runs.)
    /// - Throws: ``QueueError``, saying why it cannot be opened (a journal is not a queue).
    public func openQueue(create: Bool) async throws -> any RunStore {
        guard case .queue(let text) = self else {
            throw QueueError(code: .unreadable, location: shown, message: "a journal is not a queue")
        }
        if isPostgres { return try await PostgresQueueStore(url: text) }
        let path = path ?? text
        guard create || FileManager.default.fileExists(atPath: path) else {
            throw QueueError(code: .unreadable, location: path, message: "there is no queue file here")
        }
        return try SQLiteQueueStore(path: path)
    }

    /// The history of the runs kept here: a journal's is read when first needed, and has no
    /// runs until one creates it; a queue's opens its store now (a missing file is an error).
    /// - Throws: ``QueueError`` when a queue cannot be opened.
    public func openHistory() async throws -> any RunHistory {
        switch self {
        case .journal(let path): JournalHistory(path: path)
        case .queue: QueueHistory(store: try await openQueue(create: false), location: shown)
        }
    }
}
