internal import Sequencer
import Foundation

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

        /// `cache: 12 hits, 3 misses; 3 stored; 1.2 MB restored, 340 KB stored; saved 14.2s`
        public var line: String {
            var parts = ["\(hits) hit\(hits == 1 ? "" : "s"), \(misses) miss\(misses == 1 ? "" : "es")"]
            var kept = "\(stored) stored"
            if notStored > 0 { kept += " (\(notStored) not stored)" }
            if failedRestores > 0 { kept += ", \(failedRestores) not restored" }
            parts.append(kept)
            parts.append("\(CacheStatistics.text(bytes: bytesRestored)) restored, \(CacheStatistics.text(bytes: bytesStored)) stored")
            if hits > 0 { parts.append("saved " + String(format: "%.1fs", secondsSaved)) }
            return "cache: " + parts.joined(separator: "; ")
        }
    }

    /// A number of bytes for people, in decimal units: `340 B`, `12 KB`, `1.2 MB`, `3.4 GB`.
    public static func text(bytes count: Int64) -> String {
        let value = Double(count)
        if count < 1_000 { return "\(count) B" }
        if count < 1_000_000 { return "\(Int((value / 1_000).rounded())) KB" }
        if count < 1_000_000_000 { return String(format: "%.1f MB", value / 1_000_000) }
        return String(format: "%.1f GB", value / 1_000_000_000)
    }

    private let figures = Locked(Figures())

    public init() {}

    /// The figures now.
    public var current: Figures { figures.withLock { $0 } }

    package func update(_ change: (inout Figures) -> Void) {
        figures.withLock { change(&$0) }
    }
}
