/// MurmurHash64A (Austin Appleby's 64-bit MurmurHash2) with the seed ninja uses for the command
/// hashes of `.ninja_log` up to version 6: ninja compares the hash of an edge's command with the
/// one the log recorded to tell whether the command changed.
///
/// The input is read as little-endian 64-bit words, as ninja reads it on the little-endian
/// machines it runs on, so a hash computed here matches what ninja writes.
public enum MurmurHash64A {
    /// The seed ninja's build log uses.
    public static let ninjaSeed: UInt64 = 0xDECA_FBAD_DECA_FBAD

    private static let multiplier: UInt64 = 0xC6A4_A793_5BD1_E995
    private static let shift: UInt64 = 47

    /// The hash of `bytes`, seeded with `seed`.
    public static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = ninjaSeed) -> UInt64 {
        let length = bytes.count
        var hash = seed ^ (UInt64(length) &* multiplier)
        var offset = 0
        while length - offset >= 8 {
            var word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian
            word = word &* multiplier
            word ^= word >> shift
            word = word &* multiplier
            hash ^= word
            hash = hash &* multiplier
            offset += 8
        }
        let remaining = length - offset
        if remaining > 0 {
            // The last 1 to 7 bytes, the first of them lowest.
            var tail: UInt64 = 0
            for index in stride(from: remaining - 1, through: 0, by: -1) {
                tail = (tail << 8) | UInt64(bytes[offset + index])
            }
            hash ^= tail
            hash = hash &* multiplier
        }
        hash ^= hash >> shift
        hash = hash &* multiplier
        hash ^= hash >> shift
        return hash
    }

    /// The hash of `bytes`, seeded with `seed`.
    public static func hash(_ bytes: [UInt8], seed: UInt64 = ninjaSeed) -> UInt64 {
        bytes.withUnsafeBytes { hash($0, seed: seed) }
    }

    /// The hash of the UTF-8 bytes of `text`, seeded with `seed`.
    public static func hash(_ text: String, seed: UInt64 = ninjaSeed) -> UInt64 {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: seed) }
    }
}
