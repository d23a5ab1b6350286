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
        return hash(path, stamp: stamp)
    }

    /// ``hash(_:)``, with the stamp it went by in `text`, as ``describeStamp(of:into:)`` writes it.
    public func hash(_ path: String, stamp text: inout [UInt8]) -> String? {
        var info = stat()
        let found = stat(path, &info) == 0
        Self.describeStamp(found ? info : nil, into: &text)
        guard found, (info.st_mode & S_IFMT) == S_IFREG, let stamp = Self.stamp(info) else { return nil }
        return hash(path, stamp: stamp)
    }

    private func hash(_ path: String, stamp: FileStamp) -> String? {
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

    /// The SHA-256 of `bytes`, in hex.
    public static func digest(of bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { hex(SHA256.hash(data: $0)) }
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
        var text: [UInt8] = []
        describeStamp(of: path, into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// ``describeStamp(of:)`` as UTF-8 in `text` (replacing what it held), so that a caller
    /// checking many files reuses one buffer.
    public static func describeStamp(of path: String, into text: inout [UInt8]) {
        var info = stat()
        describeStamp(stat(path, &info) == 0 ? info : nil, into: &text)
    }

    /// ``describeStamp(of:into:)`` of what `stat` said (nil: nothing there).
    static func describeStamp(_ info: stat?, into text: inout [UInt8]) {
        text.removeAll(keepingCapacity: true)
        guard let info else { return text.append(contentsOf: "none".utf8) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return text.append(contentsOf: "directory".utf8) }
        guard let stamp = stamp(info) else { return text.append(contentsOf: "none".utf8) }
        // Written digit by digit: an up-to-date check describes every output of every job.
        appendDecimal(stamp.size, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDecimal(stamp.modified, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDecimal(stamp.inode, to: &text)
    }

    private static func appendDecimal(_ number: Int64, to text: inout [UInt8]) {
        if number < 0 { text.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        let start = text.count
        repeat {
            text.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        text[start...].reverse()
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

/// ``FileHasher/describeStamp(of:into:)`` for many files, each looked up from an open handle on
/// its directory (`fstatat`), so that the directory's own path is walked once rather than once
/// per file: an up-to-date check of a large file stats every job's outputs, most of them in a
/// few directories. The same answers as `describeStamp(of:into:)`. For one thread at a time.
///
/// ```swift
/// let reader = StampReader()
/// var stamp: [UInt8] = []
/// reader.describeStamp(of: "./out/1", into: &stamp)   // opens ./out once
/// reader.describeStamp(of: "./out/2", into: &stamp)
/// ```
public final class StampReader {
    /// An open handle on each directory met, or -1 where none could be opened.
    private var directories: [Substring: Int32] = [:]

    public init() {}

    deinit {
        for descriptor in directories.values where descriptor >= 0 { close(descriptor) }
    }

    /// The stamp of the file at `path` as ``FileHasher/describeStamp(of:into:)`` writes it.
    public func describeStamp(of path: String, into text: inout [UInt8]) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), slash != path.utf8.startIndex else {
            return FileHasher.describeStamp(of: path, into: &text)
        }
        let directory = path[..<slash]
        let descriptor = directories[directory] ?? {
            // A directory that cannot be read (search permission only) is stat'ed by path.
            let opened = open(String(directory), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            directories[directory] = opened
            return opened
        }()
        guard descriptor >= 0 else { return FileHasher.describeStamp(of: path, into: &text) }
        var info = stat()
        let found = String(path[path.utf8.index(after: slash)...]).withCString { fstatat(descriptor, $0, &info, 0) } == 0
        FileHasher.describeStamp(found ? info : nil, into: &text)
    }
}
