/// Which store a ``DurableQueue`` opens: `.sqlite(path:)` here, `.postgres(url:)` with
/// `SequencerPostgres`.
public struct QueueStoreLocation: Sendable {
    let open: @Sendable () async throws -> any QueueStore

    /// A location that opens a store of your own.
    public init(open: @escaping @Sendable () async throws -> any QueueStore) { self.open = open }

    /// An SQLite file, created when it does not exist: the embedded default, with no server.
    public static func sqlite(path: String, synchronous: SQLiteQueueStore.Synchronous = .normal) -> QueueStoreLocation {
        QueueStoreLocation { try SQLiteQueueStore(path: path, synchronous: synchronous) }
    }
}
