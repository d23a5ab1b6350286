public import SequencerQueue

extension QueueStoreLocation {
    /// An SQLite file, created when it does not exist: the embedded default, with no server.
    public static func sqlite(path: String, synchronous: SQLiteQueueStore.Synchronous = .normal) -> QueueStoreLocation {
        QueueStoreLocation { try SQLiteQueueStore(path: path, synchronous: synchronous) }
    }
}
