public import Foundation

/// The result of a job that succeeded, as the action cache keeps it under the job's key: its
/// outputs and what it printed, by digest (their bytes are blobs of the content-addressed
/// store), with what went into the key.
public struct ActionResult: Sendable, Hashable, Codable {
    public struct Output: Sendable, Hashable, Codable {
        /// Relative to the project's root.
        public var path: String
        public var digest: CacheDigest
        public var size: Int64
        public var executable: Bool

        public init(path: String, digest: CacheDigest, size: Int64, executable: Bool = false) {
            (self.path, self.digest, self.size, self.executable) = (path, digest, size, executable)
        }
    }

    public var outputs: [Output]
    /// What the job printed, as a blob; nil when it printed nothing.
    public var printed: CacheDigest?
    /// The printed blob's size (what a Bazel cache's entry names with its digest).
    public var printedSize: Int64?
    /// What went into the key.
    public var preimage: KeyPreimage
    /// How long the job ran, in seconds: the time a hit saves.
    public var duration: Double
    /// When it was stored, in milliseconds since 1970.
    public var storedAt: Int64
    /// The job that made it, and its workflow's path relative to the project's root, for
    /// people (`sequencer cache ls`); not part of the key.
    public var job: String?
    public var workflow: String?

    public init(outputs: [Output], printed: CacheDigest?, preimage: KeyPreimage, duration: Double, storedAt: Int64) {
        (self.outputs, self.printed, self.preimage, self.duration, self.storedAt) = (outputs, printed, preimage, duration, storedAt)
    }

    /// Every blob it names: a hit needs them all.
    public var blobs: [CacheDigest] {
        outputs.map(\.digest) + (printed.map { [$0] } ?? [])
    }
}

/// What the action cache keeps under a key: a job's result, or, under a job's first key (its
/// command and declared inputs), the inputs its depfile found on the runs stored so far (the
/// first step of a two-level look-up, as ccache's direct mode does).
public enum CacheRecord: Sendable, Hashable, Codable {
    case result(ActionResult)
    /// Each set of inputs (relative paths) a depfile listed, newest first.
    case discovered([[String]])
    /// Under a job's name (see ``KeyPreimage/latestKey(workflow:job:)``): the key of the result
    /// stored last for it, the nearest entry that `--explain` compares a miss with.
    case latest(CacheDigest)
}

/// What a look-up found.
public enum CacheLookup: Sendable, Hashable {
    /// A record, complete (every blob it names is there), from `namespace`.
    case found(CacheRecord, namespace: String)
    /// A result whose blob is gone: it is not served (the job runs).
    case incomplete(missing: CacheDigest, namespace: String)
    case missing
}

extension CacheRecord {
    /// The record as every store keeps it: JSON with sorted keys, its slashes as they are (an
    /// escaped slash doubles the time a path takes to read back).
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// A record from what ``encoded()`` wrote.
    public init(decoding data: Data) throws {
        self = try JSONDecoder().decode(CacheRecord.self, from: data)
    }
}
