#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
internal import Sequencer

/// The digests of files, each read once and kept while the file's stamp stays: a build hashes
/// a header once, not once for every compile that includes it.
///
/// A stamp is the file's device, inode, size, and modification and change times. Any write
/// sets the change time to now, and no one can set it back, so a file written since it was
/// hashed has another stamp; but one written twice within a tick of the files' clock keeps its
/// times. So a digest is kept only for a file last written before the tick it was hashed in
/// (git's "racily clean" entries), and only when its stamp did not change while it was read.
public final class FileDigests: Sendable {
    private struct Stamp: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64

        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            (device, inode, size) = (UInt64(info.st_dev), UInt64(info.st_ino), Int64(info.st_size))
            #if canImport(Darwin)
            modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
            changed = Int64(info.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(info.st_ctimespec.tv_nsec)
            #else
            modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
            #endif
        }
    }

    private let known = Locked<[String: (stamp: Stamp, digest: CacheDigest, size: Int64)]>([:])

    public init() {}

    /// The digest of the regular file at `path` and its size; nil when there is none, or it
    /// cannot be read.
    public func digest(of path: String) -> (digest: CacheDigest, size: Int64)? {
        guard let stamp = Stamp(path) else { return nil }
        if let kept = known.withLock({ $0[path] }), kept.stamp == stamp { return (kept.digest, kept.size) }
        let reading = ActionCache.fileClock()
        guard let read = CacheDigest.ofFile(path) else { return nil }
        if max(stamp.modified, stamp.changed) < reading, Stamp(path) == stamp {
            known.withLock { $0[path] = (stamp, read.digest, read.size) }
        }
        return read
    }

    /// The digest of the regular file at `path` and its size, read now whatever was kept.
    public static func read(_ path: String) -> (digest: CacheDigest, size: Int64)? {
        Stamp(path) == nil ? nil : CacheDigest.ofFile(path)
    }
}
