/// Claims on keys, so that two runners never run one action at once (a queue's workers across a
/// fleet): the first to claim a key runs it; the others wait for its result, then restore it.
/// A claim whose holder dies goes: with its process (a directory's, held by a file lock), or
/// when its lease runs out unrenewed (PostgreSQL's).
public protocol CacheClaims: Sendable {
    /// Claims `key` for `owner` for `lease`, or renews `owner`'s claim. False when another
    /// owner holds it.
    func claim(_ key: CacheDigest, owner: String, lease: Duration) async throws -> Bool

    /// Gives `owner`'s claim of `key` up (nothing when it holds none).
    func release(_ key: CacheDigest, owner: String) async throws
}
