import Testing

@testable import SequencerNinja

/// The command hashes of `.ninja_log`: MurmurHash64A (versions 5 and 6) and rapidhash (7).
struct MurmurHashTests {
    /// Hashes ninja 1.11.1 wrote in a `.ninja_log` for these commands (see also
    /// `NinjaLogReferenceNinjaTests`, which asks the installed ninja for more).
    static let ninjaHashes: [(command: String, hash: UInt64)] = [
        ("touch out", 0x8EA3_CC54_BDCC_AD2C),
        ("command", 0xC34A_D961_9FAD_4845),
        ("echo \"caf\u{E9} \\\\ tab\there\" > /dev/null", 0xC39D_8E8A_23C6_8701),
    ]

    @Test func murmurHashIsTheHashNinjaWrote() {
        for (command, hash) in Self.ninjaHashes {
            #expect(MurmurHash64A.hash(command) == hash, "\(command)")
            #expect(MurmurHash64A.hash(Array(command.utf8)) == hash)
            #expect(NinjaCommandHashFunction.murmurHash64A.hash(command) == hash)
        }
    }

    @Test func murmurHashDependsOnTheSeedAndEveryByte() {
        let command = Array("cc -c a.c -o a.o".utf8)
        let hash = MurmurHash64A.hash(command)
        #expect(MurmurHash64A.hash(command, seed: 0) != hash)
        for index in command.indices {
            var changed = command
            changed[index] ^= 0x01
            #expect(MurmurHash64A.hash(changed) != hash, "byte \(index)")
        }
        #expect(MurmurHash64A.hash(command + [0]) != hash)
    }

    /// Values of the rapidhash that ninja 1.13 carries (its `third_party/rapidhash/rapidhash.h`,
    /// compiled as a reference), for inputs that take each of its paths: empty, 1 to 3 bytes,
    /// 4 to 16, 17 to 48, and the 48- and 96-byte loops.
    static let rapidHashes: [(input: String, hash: UInt64)] = [
        ("", 0x5A6E_F770_74EB_C84B),
        ("a", 0xC113_2847_7BC0_F5D1),
        ("ab", 0x5644_AC03_5E40_D569),
        ("abc", 0x0347_080F_BF5F_CD81),
        ("abcd", 0x056B_66B8_DC80_2BCC),
        ("command", 0xEFE0_0395_6E8A_B156),
        ("command2", 0x4C84_383F_AA1C_4FEF),
        ("touch out", 0x97D3_AF5E_46E1_E935),
        ("0123456789abcdef", 0xFCC8_FA4E_2771_D2EF),
        ("0123456789abcdefg", 0xAB3C_2320_D701_D807),
        ("cc -MD -MF out.o.d -c in.c -o out.o && echo this is a longer command line", 0xC980_27EA_4E43_EE9D),
        (
            "a fairly long command line that goes past ninety-six bytes so that the unrolled loop runs at least once, and then some more",
            0x6BCF_CA77_A68B_9477
        ),
    ]

    /// The same reference, on `length` bytes of a pattern, around the loops' boundaries.
    static let rapidPatternHashes: [(length: Int, hash: UInt64)] = [
        (47, 0x80C8_2207_3EF8_01D9), (48, 0xEB9E_399D_9E62_25F5), (49, 0x5E44_0BBE_F83A_54C0),
        (95, 0xE4CA_95A5_2C40_6544), (96, 0xA6D6_6D89_0814_7779), (97, 0xD36F_27F6_7797_3DEC),
        (143, 0x04B9_9B0C_2031_27DA), (144, 0xB62D_ABD4_C2A9_0214), (145, 0x78BE_2B63_75C4_8887),
        (200, 0x2961_6D73_1C3E_39D2), (300, 0xF138_A528_8539_3C4A),
    ]

    @Test func rapidHashIsTheReferenceValue() {
        for (input, hash) in Self.rapidHashes {
            #expect(RapidHash.hash(input) == hash, "\(input)")
            #expect(NinjaCommandHashFunction.rapidhash.hash(Array(input.utf8)) == hash)
        }
        let pattern = (0..<300).map { UInt8(ascii: "a") + UInt8(($0 * 7) % 26) }
        for (length, hash) in Self.rapidPatternHashes {
            #expect(RapidHash.hash(Array(pattern[0..<length])) == hash, "length \(length)")
        }
    }

    @Test func logVersionChoosesTheHashFunction() {
        #expect(NinjaCommandHashFunction(logVersion: 4) == .murmurHash64A)
        #expect(NinjaCommandHashFunction(logVersion: 5) == .murmurHash64A)
        #expect(NinjaCommandHashFunction(logVersion: 6) == .murmurHash64A)
        #expect(NinjaCommandHashFunction(logVersion: 7) == .rapidhash)
        var log = NinjaBuildLog(version: 7)
        #expect(log.commandHashFunction == .rapidhash)
        log.version = nil
        #expect(log.commandHashFunction == .murmurHash64A)
    }
}
