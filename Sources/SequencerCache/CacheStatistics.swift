import Synchronization

/// What a run's cache did: hits, misses, what was stored, the bytes each way, and the time the
/// hits saved (how long their jobs ran when they were stored). Safe to read while jobs run.
public final class CacheStatistics: Sendable {
    /// The figures at one moment.
    public struct Figures: Sendable, Hashable, Codable {
        /// Jobs restored from the cache.
        public var hits = 0
        /// Cached jobs the cache had no complete entry for: they ran.
        public var misses = 0
        /// Results stored after their jobs succeeded.
        public var stored = 0
        /// Results not stored: an input changed while the job ran, an output was missing, the
        /// cache could not be written.
        public var notStored = 0
        /// Entries found but not restored (a blob gone or damaged): their jobs ran.
        public var failedRestores = 0
        public var bytesRestored: Int64 = 0
        public var bytesStored: Int64 = 0
        /// How long the restored jobs ran when their results were stored, in seconds.
        public var secondsSaved = 0.0

        public init() {}

        /// Whether the cache was asked about any job.
        public var isEmpty: Bool { hits + misses == 0 }
    }

    private let figures = Mutex(Figures())

    public init() {}

    /// The figures now.
    public var current: Figures { figures.withLock { $0 } }

    package func update(_ change: (inout Figures) -> Void) {
        figures.withLock { change(&$0) }
    }
}
