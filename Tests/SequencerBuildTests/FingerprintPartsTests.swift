import Foundation
import SequencerBuild
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The parts of a fingerprint, and the fingerprint itself: the same as the journal's earlier
/// versions computed from a dictionary, so that a journal written before stays valid.
@Suite struct FingerprintPartsTests {
    /// The fingerprint as it was computed before `FingerprintParts`: from a dictionary.
    static func dictionaryFingerprint(_ parts: [String: String]) -> String {
        FileHasher.digest(of: parts.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)" }.joined(separator: "\n"))
    }

    static let keys = ["command", "env", "cwd", "outputs", "input:src/a.h", "input:src/b.h", "input:src/*.c",
                       "need:build", "need:a-b", "dep:include/x.h", "input:é.txt"]

    @Test(arguments: 0..<40) func theFingerprintIsTheDictionarysWhateverTheOrderAndRepeats(_ seed: Int) {
        var random = SplitMix64(state: UInt64(seed))
        var parts = FingerprintParts()
        var dictionary: [String: String] = [:]
        for _ in 0..<Int(random.next() % 12) {
            let key = Self.keys[Int(random.next() % UInt64(Self.keys.count))]
            let value = String(random.next() % 1000, radix: 16)
            parts[key] = value  // a key set again replaces its value
            dictionary[key] = value
        }
        #expect(parts.fingerprint == Self.dictionaryFingerprint(dictionary))
        #expect(parts.dictionary == dictionary)
        #expect(parts.sorted.map(\.key) == dictionary.keys.sorted())
        #expect(parts == FingerprintParts(dictionary))
        var scratch: [UInt8] = Array("left over".utf8)
        #expect(parts.fingerprint(scratch: &scratch) == parts.fingerprint)
        for key in Self.keys { #expect(parts[key] == dictionary[key]) }
    }

    @Test func partsSetInKeyOrderGiveTheSameFingerprint() {
        let dictionary = Dictionary(uniqueKeysWithValues: Self.keys.enumerated().map { ($1, "\($0)") })
        var inOrder = FingerprintParts()
        for key in Self.keys.sorted() { inOrder[key] = dictionary[key] }
        #expect(inOrder.fingerprint == Self.dictionaryFingerprint(dictionary))
        var reversed = FingerprintParts()
        for key in Self.keys.sorted().reversed() { reversed[key] = dictionary[key] }
        #expect(reversed.fingerprint == inOrder.fingerprint)
        inOrder["outputs"] = "changed"  // out of order now
        #expect(inOrder.fingerprint == Self.dictionaryFingerprint(dictionary.merging(["outputs": "changed"]) { $1 }))
    }

    @Test func removingAPartRemovesEveryValueOfIt() {
        var parts = FingerprintParts()
        parts["command"] = "1"
        parts["command"] = "2"
        parts["env"] = "3"
        parts["command"] = nil
        #expect(parts.dictionary == ["env": "3"])
        #expect(FingerprintParts().fingerprint == Self.dictionaryFingerprint([:]))
    }
}
