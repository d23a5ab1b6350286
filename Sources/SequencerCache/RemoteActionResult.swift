import Foundation

/// The part of the Remote Execution API's `ActionResult` message that a Bazel HTTP cache
/// (bazel-remote, BuildBuddy) keeps under `/ac/KEY`, in protobuf's wire format: output files
/// (path, digest, executable bit), the exit code and the standard output's digest.
///
/// A server that validates what is put under `/ac/` (bazel-remote does, unless started with
/// `--disable_http_ac_validation`) needs a well-formed message whose blobs are in `/cas/`.
/// Sequencer's own record (a ``CacheRecord``, as JSON) is a blob too, named by the output file
/// ``recordPath``: other clients see the job's outputs, and Sequencer its record.
public struct RemoteActionResult: Sendable, Hashable {
    /// An output file: its path, digest, size and executable bit.
    public typealias File = ActionResult.Output

    /// The output file whose blob is Sequencer's record.
    public static let recordPath = ".sequencer/record.json"

    public var files: [File]
    public var exitCode: Int32
    public var stdout: (digest: CacheDigest, size: Int64)?

    public init(files: [File], exitCode: Int32 = 0, stdout: (digest: CacheDigest, size: Int64)? = nil) {
        (self.files, self.exitCode, self.stdout) = (files, exitCode, stdout)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.files == rhs.files && lhs.exitCode == rhs.exitCode && lhs.stdout?.digest == rhs.stdout?.digest
            && lhs.stdout?.size == rhs.stdout?.size
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(files)
        hasher.combine(exitCode)
        hasher.combine(stdout?.digest)
    }

    /// Sequencer's record's blob, when the message names one.
    public var record: File? { files.first { $0.path == Self.recordPath } }

    /// Every blob it names.
    public var blobs: [CacheDigest] { files.map(\.digest) + (stdout.map { [$0.digest] } ?? []) }

    // MARK: Wire format

    /// The message's bytes. Fields: `output_files` 2, `exit_code` 4, `stdout_digest` 6;
    /// `OutputFile`: `path` 1, `digest` 2, `is_executable` 4; `Digest`: `hash` 1, `size_bytes` 2.
    public func encoded() -> [UInt8] {
        var message: [UInt8] = []
        for file in files {
            var entry: [UInt8] = []
            Wire.bytes(1, Array(file.path.utf8), into: &entry)
            Wire.bytes(2, Self.digest(file.digest, file.size), into: &entry)
            if file.executable { Wire.varint(4, 1, into: &entry) }
            Wire.bytes(2, entry, into: &message)
        }
        if exitCode != 0 { Wire.varint(4, UInt64(bitPattern: Int64(exitCode)), into: &message) }
        if let stdout { Wire.bytes(6, Self.digest(stdout.digest, stdout.size), into: &message) }
        return message
    }

    private static func digest(_ digest: CacheDigest, _ size: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        Wire.bytes(1, Array(digest.hex.utf8), into: &bytes)
        if size != 0 { Wire.varint(2, UInt64(bitPattern: size), into: &bytes) }
        return bytes
    }

    /// Reads a message; nil when `bytes` is not one (a damaged or foreign entry). Fields it
    /// does not know are skipped, as protobuf readers do.
    public init?(decoding bytes: [UInt8]) {
        var reader = Wire.Reader(bytes: bytes[...])
        var files: [File] = []
        var exitCode: Int32 = 0
        var stdout: (CacheDigest, Int64)?
        while !reader.isAtEnd {
            guard let (field, value) = reader.field() else { return nil }
            switch (field, value) {
            case (2, .bytes(let entry)):
                guard let file = Self.file(entry) else { return nil }
                files.append(file)
            case (4, .varint(let code)): exitCode = Int32(truncatingIfNeeded: Int64(bitPattern: code))
            case (6, .bytes(let digest)):
                guard let found = Self.digest(digest) else { return nil }
                stdout = found
            default: continue
            }
        }
        self.init(files: files, exitCode: exitCode, stdout: stdout)
    }

    private static func file(_ bytes: ArraySlice<UInt8>) -> File? {
        var reader = Wire.Reader(bytes: bytes)
        var path: String?, digest: (CacheDigest, Int64)?, executable = false
        while !reader.isAtEnd {
            guard let (field, value) = reader.field() else { return nil }
            switch (field, value) {
            case (1, .bytes(let text)): path = String(decoding: text, as: UTF8.self)
            case (2, .bytes(let inner)): digest = Self.digest(inner)
            case (4, .varint(let flag)): executable = flag != 0
            default: continue
            }
        }
        guard let path, let digest else { return nil }
        return File(path: path, digest: digest.0, size: digest.1, executable: executable)
    }

    private static func digest(_ bytes: ArraySlice<UInt8>) -> (CacheDigest, Int64)? {
        var reader = Wire.Reader(bytes: bytes)
        var hash: CacheDigest?, size: Int64 = 0
        while !reader.isAtEnd {
            guard let (field, value) = reader.field() else { return nil }
            switch (field, value) {
            case (1, .bytes(let text)): hash = CacheDigest(hex: String(decoding: text, as: UTF8.self))
            case (2, .varint(let number)): size = Int64(bitPattern: number)
            default: continue
            }
        }
        return hash.map { ($0, size) }
    }
}

/// Protobuf's wire format, as much as ``RemoteActionResult`` needs.
enum Wire {
    enum Value {
        case varint(UInt64)
        case bytes(ArraySlice<UInt8>)
        case fixed
    }

    static func varint(_ value: UInt64, into bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    static func varint(_ field: Int, _ value: UInt64, into bytes: inout [UInt8]) {
        varint(UInt64(field << 3), into: &bytes)
        varint(value, into: &bytes)
    }

    static func bytes(_ field: Int, _ value: [UInt8], into bytes: inout [UInt8]) {
        varint(UInt64(field << 3 | 2), into: &bytes)
        varint(UInt64(value.count), into: &bytes)
        bytes.append(contentsOf: value)
    }

    struct Reader {
        var bytes: ArraySlice<UInt8>
        var isAtEnd: Bool { bytes.isEmpty }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = bytes.first, shift < 64 {
                bytes = bytes.dropFirst()
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }

        /// The next field's number and value; nil when the bytes are not a message.
        mutating func field() -> (Int, Value)? {
            guard let key = varint(), key >> 3 > 0 else { return nil }
            switch key & 7 {
            case 0: return varint().map { (Int(key >> 3), .varint($0)) }
            case 1, 5:
                let width = key & 7 == 1 ? 8 : 4
                guard bytes.count >= width else { return nil }
                bytes = bytes.dropFirst(width)
                return (Int(key >> 3), .fixed)
            case 2:
                guard let length = varint(), length <= UInt64(bytes.count) else { return nil }
                let value = bytes.prefix(Int(length))
                bytes = bytes.dropFirst(Int(length))
                return (Int(key >> 3), .bytes(value))
            default: return nil
            }
        }
    }
}
