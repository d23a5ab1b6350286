#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
public import Foundation
internal import Sequencer

/// Content hashes of files (SHA-256), cached by each file's size, modification time and inode:
/// a file is read again only when one of those changed.
public final class FileHasher: Sendable {
    private let cache: Locked<[String: (stamp: FileStamp, hash: String)]>
    private let recorder: JournalRecorder?

    /// - Parameters:
    ///   - cache: hashes from earlier runs (``SQLiteJournal/fileHashes()``).
    ///   - recorder: where new hashes are recorded, for the next run.
    public init(cache: [String: (stamp: FileStamp, hash: String)] = [:], recorder: JournalRecorder? = nil) {
        self.cache = Locked(cache)
        self.recorder = recorder
    }

    /// The file's stamp, or nil when there is no regular file at `path`.
    public static func stamp(of path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return stamp(info)
    }

    private static func stamp(_ info: stat) -> FileStamp? {
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return FileStamp(size: Int64(info.st_size), modified: modified, inode: Int64(bitPattern: UInt64(info.st_ino)))
    }

    /// The hash of the file at `path` (absolute), or nil when it is missing or unreadable.
    public func hash(_ path: String) -> String? {
        guard let stamp = Self.stamp(of: path) else { return nil }
        if let cached = cache.withLock({ $0[path] }), cached.stamp == stamp { return cached.hash }
        guard let hash = Self.digest(path) else { return nil }
        // A file changed while it was read gets no cache entry: the next run reads it again.
        guard Self.stamp(of: path) == stamp else { return hash }
        cache.withLock { $0[path] = (stamp, hash) }
        recorder?.recordFileHash(path: path, stamp: stamp, hash: hash)
        return hash
    }

    /// The SHA-256 of `text`, in hex.
    public static func digest(of text: String) -> String {
        var text = text
        return text.withUTF8 { hex(SHA256.hash(data: $0)) }
    }

    /// The SHA-256 of `bytes`, in hex.
    public static func digest(of bytes: some DataProtocol) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// A quick 64-bit hash of `text` (FNV-1a), in hex: for telling which part of a
    /// fingerprint changed, not for the fingerprint itself.
    public static func quickDigest(of text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hex(withUnsafeBytes(of: hash.bigEndian) { Array($0) })
    }

    /// The file's stamp as text (`size:mtime:inode`), `directory`, or `none` when nothing is there.
    public static func describeStamp(of path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "none" }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "directory" }
        return stamp(info).map { "\($0.size):\($0.modified):\($0.inode)" } ?? "none"
    }

    private static func digest(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        return hex(hasher.finalize())
    }

    private static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        for byte in digest {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
