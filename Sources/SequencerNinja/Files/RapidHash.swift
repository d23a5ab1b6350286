/// rapidhash (Nicolas De Carli's, after wyhash), in its default "fast" and unrolled form with its
/// default seed: the command hash of `.ninja_log` version 7, which ninja 1.13 writes.
///
/// Words are read little-endian, as on the machines ninja runs on.
public enum RapidHash {
    /// The seed `rapidhash()` uses when none is given.
    public static let defaultSeed: UInt64 = 0xBDD8_9AA9_8270_4029

    private static let secret0: UInt64 = 0x2D35_8DCC_AA6C_78A5
    private static let secret1: UInt64 = 0x8BB8_4B93_962E_ACC9
    private static let secret2: UInt64 = 0x4B33_A62E_D433_D4A3

    /// The hash of `bytes`, seeded with `seed`.
    public static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = defaultSeed) -> UInt64 {
        let length = bytes.count
        var seed = seed ^ mix(seed ^ secret0, secret1) ^ UInt64(length)
        var a: UInt64
        var b: UInt64
        if length <= 16 {
            if length >= 4 {
                let last = length - 4
                a = (read32(bytes, 0) << 32) | read32(bytes, last)
                let delta = (length & 24) >> (length >> 3)
                b = (read32(bytes, delta) << 32) | read32(bytes, last - delta)
            } else if length > 0 {
                a = (UInt64(bytes[0]) << 56) | (UInt64(bytes[length >> 1]) << 32) | UInt64(bytes[length - 1])
                b = 0
            } else {
                a = 0
                b = 0
            }
        } else {
            var offset = 0
            var remaining = length
            if remaining > 48 {
                var seed1 = seed
                var seed2 = seed
                while remaining >= 48 {
                    seed = mix(read64(bytes, offset) ^ secret0, read64(bytes, offset + 8) ^ seed)
                    seed1 = mix(read64(bytes, offset + 16) ^ secret1, read64(bytes, offset + 24) ^ seed1)
                    seed2 = mix(read64(bytes, offset + 32) ^ secret2, read64(bytes, offset + 40) ^ seed2)
                    offset += 48
                    remaining -= 48
                }
                seed ^= seed1 ^ seed2
            }
            if remaining > 16 {
                seed = mix(read64(bytes, offset) ^ secret2, read64(bytes, offset + 8) ^ seed ^ secret1)
                if remaining > 32 {
                    seed = mix(read64(bytes, offset + 16) ^ secret2, read64(bytes, offset + 24) ^ seed)
                }
            }
            // The last 16 bytes of the input, whatever the loops above consumed.
            a = read64(bytes, length - 16)
            b = read64(bytes, length - 8)
        }
        a ^= secret1
        b ^= seed
        (a, b) = multiply(a, b)
        return mix(a ^ secret0 ^ UInt64(length), b ^ secret1)
    }

    /// The hash of `bytes`, seeded with `seed`.
    public static func hash(_ bytes: [UInt8], seed: UInt64 = defaultSeed) -> UInt64 {
        bytes.withUnsafeBytes { hash($0, seed: seed) }
    }

    /// The hash of the UTF-8 bytes of `text`, seeded with `seed`.
    public static func hash(_ text: String, seed: UInt64 = defaultSeed) -> UInt64 {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: seed) }
    }

    /// The 128-bit product of `a` and `b`, as (low, high) halves.
    private static func multiply(_ a: UInt64, _ b: UInt64) -> (UInt64, UInt64) {
        let product = a.multipliedFullWidth(by: b)
        return (product.low, product.high)
    }

    private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (low, high) = multiply(a, b)
        return low ^ high
    }

    private static func read64(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian
    }

    private static func read32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
    }
}
