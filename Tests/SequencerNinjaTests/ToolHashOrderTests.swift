import Testing

@testable import SequencerNinja

/// The order of ninja's hash tables, as ninja 1.11.1 (built with libstdc++) shows it.
struct ToolHashOrderTests {
    @Test func murmurHash2AsNinjaComputesIt() {
        let expected: [(String, UInt32)] = [
            ("", 2_895_639_983), ("a", 4_073_937_133), ("ab", 4_065_808_035), ("abc", 3_159_550_715), ("abcd", 2_454_703_460),
            ("build.ninja", 992_231_401), ("src/main.cc", 3_874_652_680),
        ]
        for (text, hash) in expected {
            #expect(NinjaHashTableOrder.murmurHash2(Array(text.utf8)) == hash, "\(text)")
        }
    }

    /// `ninja -n -t cleandead` with `f0` … `f19` logged in order, all dead.
    @Test func orderOfTwentyLoggedOutputs() {
        let keys = (0..<20).map { "f\($0)" }
        let expected = [19, 17, 16, 15, 14, 13, 1, 5, 9, 18, 2, 3, 10, 4, 6, 7, 0, 8, 11, 12].map { "f\($0)" }
        #expect(NinjaHashTableOrder.ordered(keys) == expected)
    }

    @Test func everyKeyOnceThroughManyRehashes() {
        let keys = (0..<5000).map { "path/\($0).o" }
        let order = NinjaHashTableOrder.iterationOrder(ofInsertedKeys: keys)
        #expect(order.count == keys.count)
        #expect(Set(order).count == keys.count)
        #expect(NinjaHashTableOrder.ordered([]) == [])
    }
}
