/// Which store a ``DurableQueue`` opens: `.sqlite(path:)` with `SequencerQueueSQLite` (the
/// embedded default), `.postgres(url:)` with `SequencerPostgres`, or a store of your own.
public struct QueueStoreLocation: Sendable {
    let open: @Sendable () async throws -> any QueueStore

    /// A location that opens a store of your own.
    public init(open: @escaping @Sendable () async throws -> any QueueStore) { self.open = open }
}
