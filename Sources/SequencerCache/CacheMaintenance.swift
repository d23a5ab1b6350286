public import Foundation

/// What `sequencer cache stats`, `ls`, `verify` and `gc` do, on each cache they keep: a
/// directory (``DirectoryCache``) and a PostgreSQL database. (An HTTP cache is kept by its
/// server.) Each is safe while others use the cache: a blob removed under a reader makes its
/// result incomplete, so the job runs; never wrong.
public protocol CacheMaintenance: CacheStore {
    /// Where the cache is, for people: a directory, or a URL with its password masked.
    var location: String { get }

    /// How much the cache holds now.
    func usage() async throws -> CacheUsage

    /// The results kept in `namespaces` (every namespace when nil), the most recently used first.
    func results(in namespaces: [String]?) async throws -> [CacheListing]

    /// Reads every blob and record back; with `repair`, removes what is damaged, and results
    /// whose blobs are gone.
    func verify(repair: Bool) async throws -> CacheVerification

    /// Removes what is least recently used until the cache holds at most `maxSize` bytes (no
    /// limit when nil), then results whose blobs are gone, and what writers that were killed
    /// left (temporary files, claims) longer than `staleAfter` ago.
    func collect(maxSize: Int64?, staleAfter: TimeInterval) async throws -> CacheCollection
}

/// How much a cache holds.
public struct CacheUsage: Sendable, Hashable, Codable {
    public var blobs = 0
    public var blobBytes: Int64 = 0
    /// Results, by namespace.
    public var results: [String: Int] = [:]
    /// Sets of inputs found by depfiles, and names of jobs' latest results.
    public var otherRecords = 0
    public var recordBytes: Int64 = 0
    /// Writes in progress, or left by a writer that was killed: a directory's files in `tmp/`.
    public var temporaries = 0

    public init() {}

    public var totalBytes: Int64 { blobBytes + recordBytes }
}

/// A result as `ls` lists it.
public struct CacheListing: Sendable, Hashable {
    public var namespace: String
    public var key: CacheDigest
    public var result: ActionResult
    /// When it was last used (stored or restored).
    public var usedAt: Date

    public init(namespace: String, key: CacheDigest, result: ActionResult, usedAt: Date) {
        (self.namespace, self.key, self.result, self.usedAt) = (namespace, key, result, usedAt)
    }
}

/// What `verify` found, and what it removed when repairing. Each is named by where it is: a
/// directory's file, or a database's `namespace/key` or blob digest.
public struct CacheVerification: Sendable, Hashable, Codable {
    public var blobsChecked = 0
    public var recordsChecked = 0
    /// Blobs whose bytes do not match their names.
    public var damagedBlobs: [String] = []
    /// Records that cannot be read.
    public var damagedRecords: [String] = []
    /// Results that name a blob that is not there (never served; `gc` removes them).
    public var incompleteResults: [String] = []

    public init() {}

    public var isClean: Bool { damagedBlobs.isEmpty && damagedRecords.isEmpty && incompleteResults.isEmpty }
}

/// What `gc` removed.
public struct CacheCollection: Sendable, Hashable, Codable {
    /// Blobs, records, and what killed writers left: a directory's files, a database's rows.
    public var removedFiles = 0
    public var freedBytes: Int64 = 0
    public var sizeAfter: Int64 = 0

    public init() {}
}
