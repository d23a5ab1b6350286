public import SequencerQueue

extension QueueStoreLocation {
    /// A PostgreSQL database, shared by any number of worker processes on any number of
    /// machines: `postgres://user:password@host:port/database` (`?sslmode=disable`, `prefer`,
    /// the default, or `require`). The queue's tables are created in the schema `sequencer`
    /// when they are not there.
    public static func postgres(url: String) -> QueueStoreLocation {
        QueueStoreLocation { try await PostgresQueueStore(url: url) }
    }
}
