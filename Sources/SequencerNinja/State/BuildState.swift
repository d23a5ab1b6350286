/// What Sequencer knows of a build directory between builds: each file's content hash with the
/// stamp it was taken at (so that an unchanged file is not read again), and each edge's
/// fingerprint when it last succeeded (its command and the contents of its inputs).
///
/// It is a cache: kept in `.sequencer/ninja-state` (``BuildStateFile``), damaged or missing
/// means every edge is checked from its files again.
public struct BuildState: Sendable {
    public struct FileEntry: Sendable, Equatable {
        public var stamp: FileStamp
        public var digest: Digest
    }

    /// Path → its hash and the stamp the hash was taken at.
    public var files: [String: FileEntry] = [:]
    /// An edge's first output → its fingerprint when it last succeeded.
    public var edges: [String: Digest] = [:]

    public init() {}
}
