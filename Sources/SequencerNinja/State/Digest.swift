internal import Crypto

/// A SHA-256 digest, as four words: compared and kept without allocating.
public struct Digest: Sendable, Hashable {
    public var words: (UInt64, UInt64, UInt64, UInt64)

    public init(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) { words = (a, b, c, d) }

    public static func == (lhs: Digest, rhs: Digest) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(words.0) }

    /// Stands for a file that is not there.
    public static let missing = Digest(0, 0, 0, 1)
    /// The fingerprint of an edge whose last run failed: equal to no fingerprint, so the edge
    /// runs again (and is not taken for up to date from ninja's files either).
    public static let failed = Digest(0, 0, 0, 2)

    /// The first 16 hex digits, for messages.
    public var short: String {
        let text = String(words.0, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    init(_ digest: SHA256.Digest) {
        var words: [UInt64] = [0, 0, 0, 0]
        digest.withUnsafeBytes { bytes in
            for index in 0..<4 { words[index] = bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) }
        }
        self.init(words[0], words[1], words[2], words[3])
    }

    /// A digest from its 64 hex digits, as SHA-256's bytes are written; nil for anything else.
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 48...57: digit - 48
            case 97...102: digit - 87
            case 65...70: digit - 55
            default: nil
            }
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in 0..<32 {
            guard let high = value(digits[2 * index]), let low = value(digits[2 * index + 1]) else { return nil }
            bytes[index] = high << 4 | low
        }
        var words: [UInt64] = [0, 0, 0, 0]
        bytes.withUnsafeBytes { raw in
            for index in 0..<4 { words[index] = raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) }
        }
        self.init(words[0], words[1], words[2], words[3])
    }

    /// The digest of `bytes`.
    public static func of(_ bytes: some Sequence<UInt8>) -> Digest {
        var hasher = SHA256()
        hasher.update(data: Array(bytes))
        return Digest(hasher.finalize())
    }
}

/// Builds a digest from parts, each written with its length so that no two lists of parts
/// give the same bytes.
struct DigestBuilder {
    private var hasher = SHA256()

    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            add(UInt64(bytes.count))
            hasher.update(bufferPointer: UnsafeRawBufferPointer(bytes))
        }
    }

    mutating func add(_ digest: Digest) {
        add(digest.words.0)
        add(digest.words.1)
        add(digest.words.2)
        add(digest.words.3)
    }

    mutating func add(_ word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { hasher.update(bufferPointer: $0) }
    }

    func finish() -> Digest { Digest(hasher.finalize()) }
}
