/// Where results and blobs are kept: a directory (``DirectoryCache``), and later PostgreSQL or
/// an HTTP cache. Every backend promises the same, and the contract tests check it on each:
/// - a record is found only complete: a result whose blob is gone is ``CacheLookup/incomplete(missing:namespace:)``, never served;
/// - a blob is served only when its bytes match its digest: one that does not is removed and
///   ``CacheError/Code/damaged`` thrown;
/// - a write is whole or absent: no reader sees half a blob or half a record, whatever process
///   is killed when;
/// - a store opened read-only writes nothing.
public protocol CacheStore: Sendable {
    /// Whether it was opened read-only.
    var isReadOnly: Bool { get }

    /// The record kept under `key` in the first of `namespaces` that has one.
    func record(for key: CacheDigest, in namespaces: [String]) async throws -> CacheLookup

    /// Keeps `record` under `key` in `namespace`, replacing the one there. A result's blobs
    /// must be stored first.
    func store(_ record: CacheRecord, for key: CacheDigest, in namespace: String) async throws

    /// Whether the blob `digest` is there.
    func hasBlob(_ digest: CacheDigest) async throws -> Bool

    /// Stores the file at `path` as the blob `digest`, unless it is there already.
    /// - Throws: ``CacheError/Code/changed`` when the file's bytes no longer match `digest`.
    func storeBlob(_ digest: CacheDigest, from path: String) async throws

    /// Writes the blob `digest` to `path` (replacing it whole, or leaving it as it was).
    /// - Throws: ``CacheError/Code/damaged`` when the blob's bytes do not match (it is removed).
    func fetchBlob(_ digest: CacheDigest, to path: String) async throws
}
