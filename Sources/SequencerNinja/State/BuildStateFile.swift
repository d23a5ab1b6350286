#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file that keeps a ``BuildState``: a header, then records appended as edges end, so that
/// a build that is killed keeps what it finished.
///
/// Each record is its payload's length (4 bytes), a kind (1 byte), the payload, and a checksum
/// of kind and payload (4 bytes). Paths are written once and named by number after. Reading
/// stops at the first record that is cut short or fails its checksum: what follows is dropped,
/// and the file is written anew.
public struct BuildStateFile: Sendable {
    static let header: [UInt8] = Array("# sequencer ninja state 1\n".utf8)

    enum Kind: UInt8 {
        case path = 1
        case file = 2
        case edge = 3
        case forgetEdge = 4
    }

    public let path: String

    public init(path: String) { self.path = path }

    /// What reading found.
    public struct Loaded: Sendable {
        public var state: BuildState
        /// Why the file was not read whole (damaged, or of another version); nil when it was,
        /// or when there was none.
        public var problem: String?
        /// Records read: more than the state holds means it is worth compacting.
        public var records: Int
        public var existed: Bool
        /// The paths the file names, in order: a record names a path by its place here.
        var paths: [String] = []
    }

    /// Reads the file; a missing one is an empty state.
    public func load() -> Loaded {
        // Read a piece at a time: the file of a Chromium-sized build is tens of megabytes, and
        // a copy of it whole would set the no-op's peak memory.
        guard var stream = RecordStream(path: path) else { return Loaded(state: BuildState(), problem: nil, records: 0, existed: false) }
        var state = BuildState()
        guard stream.fill(Self.header.count), stream.starts(with: Self.header) else {
            return Loaded(state: state, problem: "not a state file of this version", records: 0, existed: true)
        }
        stream.consume(Self.header.count)
        var paths: [String] = []
        var records = 0
        var problem: String?
        while stream.fill(1) {
            guard stream.fill(9) else {
                problem = "cut short"
                break
            }
            let length = stream.withBytes { Int($0.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian) }
            let size = 4 + 1 + length + 4
            guard length <= 1 << 24, stream.fill(size) else {
                problem = "cut short"
                break
            }
            problem = stream.withBytes { raw in
                let kindOffset = 4
                let end = kindOffset + 1 + length
                let sum = raw.loadUnaligned(fromByteOffset: end, as: UInt32.self).littleEndian
                guard sum == Self.checksum(UnsafeRawBufferPointer(rebasing: raw[kindOffset..<end])) else { return "damaged" }
                let payload = UnsafeRawBufferPointer(rebasing: raw[(kindOffset + 1)..<end])
                var reader = PayloadReader(bytes: payload)
                switch Kind(rawValue: raw[kindOffset]) {
                case .path:
                    paths.append(String(decoding: payload, as: UTF8.self))
                case .file:
                    guard let id = reader.word32(), Int(id) < paths.count,
                        let size = reader.word64(), let modified = reader.word64(), let inode = reader.word64(),
                        let digest = reader.digest()
                    else { return "damaged" }
                    let stamp = FileStamp(size: Int64(bitPattern: size), modified: Int64(bitPattern: modified), inode: inode)
                    state.files[paths[Int(id)]] = BuildState.FileEntry(stamp: stamp, digest: digest)
                case .edge:
                    guard let id = reader.word32(), Int(id) < paths.count, let digest = reader.digest() else { return "damaged" }
                    state.edges[paths[Int(id)]] = digest
                case .forgetEdge:
                    guard let id = reader.word32(), Int(id) < paths.count else { return "damaged" }
                    state.edges[paths[Int(id)]] = nil
                case nil:
                    return "damaged"
                }
                return nil
            }
            if problem != nil { break }
            records += 1
            stream.consume(size)
        }
        return Loaded(state: state, problem: problem, records: records, existed: true, paths: paths)
    }

    /// A file read a piece at a time: the bytes from the first not yet consumed.
    struct RecordStream: ~Copyable {
        private let descriptor: Int32
        private var buffer: [UInt8] = []
        private var start = 0
        private var ended = false
        /// Where each read lands: a megabyte, or the whole of a smaller file.
        private var piece: [UInt8]

        init?(path: String) {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            var info = stat()
            let size = fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
            piece = [UInt8](repeating: 0, count: min(1 << 20, max(4096, size + 1)))
        }

        deinit { close(descriptor) }

        /// Reads until `count` bytes are there, or the file ends (or cannot be read): then false.
        mutating func fill(_ count: Int) -> Bool {
            while buffer.count - start < count, !ended {
                if start > 0, start * 2 >= buffer.count {
                    buffer.removeSubrange(0..<start)
                    start = 0
                }
                var got = 0
                repeat {
                    got = piece.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                } while got < 0 && errno == EINTR
                if got <= 0 {
                    ended = true
                } else {
                    piece.withUnsafeBytes { buffer.append(contentsOf: $0.prefix(got)) }
                }
            }
            return buffer.count - start >= count
        }

        func starts(with prefix: [UInt8]) -> Bool { buffer[start...].starts(with: prefix) }

        mutating func consume(_ count: Int) { start += count }

        /// The bytes not yet consumed.
        func withBytes<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
            buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        }
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash &*= 0x0100_0193
        }
        return hash
    }

    /// Reads the words of a record's payload.
    struct PayloadReader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func word32() -> UInt32? {
            guard offset + 4 <= bytes.count else { return nil }
            defer { offset += 4 }
            return bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
        }

        mutating func word64() -> UInt64? {
            guard offset + 8 <= bytes.count else { return nil }
            defer { offset += 8 }
            return bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian
        }

        mutating func digest() -> Digest? {
            guard let a = word64(), let b = word64(), let c = word64(), let d = word64() else { return nil }
            return Digest(a, b, c, d)
        }
    }
}

/// Appends records to a state file; each `flush` is one `write`.
struct BuildStateWriter {
    private var pathIDs: [String: UInt32] = [:]
    private var buffer: [UInt8] = []
    private var descriptor: Int32 = -1
    private let path: String

    /// Opens `path` for appending after what `loaded` read of it, or, when `loaded` is nil,
    /// writes it anew from `state` (compacting it, or replacing a damaged one).
    init?(path: String, state: BuildState, appendingTo loaded: BuildStateFile.Loaded?) {
        self.path = path
        if let loaded {
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            self.descriptor = descriptor
            for (id, name) in loaded.paths.enumerated() { pathIDs[name] = UInt32(id) }
        } else {
            let temporary = path + ".new"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { return nil }
            self.descriptor = descriptor
            buffer = BuildStateFile.header
            for (path, entry) in state.files { appendFile(path, entry) }
            for (path, digest) in state.edges { appendEdge(path, digest) }
            guard flush(), rename(temporary, path) == 0 else {
                closeDescriptor(descriptor)
                unlink(temporary)
                return nil
            }
        }
    }

    mutating func appendFile(_ path: String, _ entry: BuildState.FileEntry) {
        let id = pathID(path)
        record(.file) { payload in
            append32(id, to: &payload)
            append64(UInt64(bitPattern: entry.stamp.size), to: &payload)
            append64(UInt64(bitPattern: entry.stamp.modified), to: &payload)
            append64(entry.stamp.inode, to: &payload)
            appendDigest(entry.digest, to: &payload)
        }
    }

    mutating func appendEdge(_ output: String, _ fingerprint: Digest) {
        let id = pathID(output)
        record(.edge) { payload in
            append32(id, to: &payload)
            appendDigest(fingerprint, to: &payload)
        }
    }

    mutating func forgetEdge(_ output: String) {
        let id = pathID(output)
        record(.forgetEdge) { append32(id, to: &$0) }
    }

    /// Writes what was appended; false when the write failed.
    @discardableResult
    mutating func flush() -> Bool {
        guard !buffer.isEmpty else { return true }
        defer { buffer.removeAll(keepingCapacity: true) }
        return buffer.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count {
                let count = write(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return true
        }
    }

    mutating func close() {
        flush()
        if descriptor >= 0 { closeDescriptor(descriptor) }
        descriptor = -1
    }

    private mutating func pathID(_ path: String) -> UInt32 {
        if let id = pathIDs[path] { return id }
        let id = UInt32(pathIDs.count)
        pathIDs[path] = id
        record(.path) { $0.append(contentsOf: path.utf8) }
        return id
    }

    private mutating func record(_ kind: BuildStateFile.Kind, _ write: (inout [UInt8]) -> Void) {
        var payload: [UInt8] = [kind.rawValue]
        write(&payload)
        append32(UInt32(payload.count - 1), to: &buffer)
        buffer += payload
        payload.withUnsafeBytes { append32(BuildStateFile.checksum($0), to: &buffer) }
    }
}

private func append32(_ word: UInt32, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
}

private func append64(_ word: UInt64, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
}

private func appendDigest(_ digest: Digest, to bytes: inout [UInt8]) {
    append64(digest.words.0, to: &bytes)
    append64(digest.words.1, to: &bytes)
    append64(digest.words.2, to: &bytes)
    append64(digest.words.3, to: &bytes)
}

func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

/// The whole file at `path`, or nil when it cannot be read.
func readWhole(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var total = 0
    while true {
        if total == bytes.count { bytes.append(contentsOf: [UInt8](repeating: 0, count: max(4096, bytes.count))) }
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress.map { $0 + total }, $0.count - total) }
        if count < 0 {
            if errno == EINTR { continue }
            return nil
        }
        if count == 0 { break }
        total += count
    }
    bytes.removeSubrange(total...)
    return bytes
}
