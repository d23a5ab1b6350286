#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import Crypto
public import Foundation

/// A SHA-256 digest in lowercase hex: the name of a blob in the content-addressed store, and of
/// an entry in the action cache (the digest of its key's pre-image). The form bazel-remote's
/// `/cas/` and `/ac/` paths use.
public struct CacheDigest: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// 64 lowercase hex digits.
    public let hex: String

    /// A digest from its 64 lowercase hex digits; nil for anything else (a name read from a
    /// directory, a header or a file is checked before it names a path).
    public init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        self.hex = hex
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let digest = CacheDigest(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a SHA-256 digest in hex"))
        }
        self = digest
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    public var description: String { hex }

    /// The first 12 digits, for people.
    public var short: String { String(hex.prefix(12)) }

    public static func < (lhs: CacheDigest, rhs: CacheDigest) -> Bool { lhs.hex < rhs.hex }

    /// The digest of `bytes`.
    public static func of(_ bytes: some DataProtocol) -> CacheDigest {
        CacheDigest(SHA256.hash(data: bytes))
    }

    /// The digest of the file at `path` and its size, read once; nil when it cannot be read.
    public static func ofFile(_ path: String) -> (digest: CacheDigest, size: Int64)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var hasher = Hashing()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        return (hasher.finish(), hasher.size)
    }

    init(_ digest: SHA256.Digest) {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        for byte in digest {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0xF)])
        }
        hex = String(decoding: bytes, as: UTF8.self)
    }

    /// A digest computed as bytes go by (a blob copied while it is checked).
    public struct Hashing {
        private var hasher = SHA256()
        public private(set) var size: Int64 = 0

        public init() {}

        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            hasher.update(bufferPointer: bytes)
            size += Int64(bytes.count)
        }

        public mutating func update(_ data: Data) {
            data.withUnsafeBytes { update($0) }
        }

        public func finish() -> CacheDigest { CacheDigest(hasher.finalize()) }
    }
}
