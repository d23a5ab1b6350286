import Foundation
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing
import SequencerHistory

/// What a journal keeps of a job's last success, read without decoding all of it.
@Suite struct FingerprintTests {
    @Test func anOutputMatchesItsRecordedStampOrHasNone() {
        let fingerprint = Fingerprint(
            fingerprint: "f", parts: [:], outputs: ["out/a": "1:2:3", "out/ab": "4:5:6", "b": "directory"])
        #expect(fingerprint.outputMatches("out/a", stamp: Array("1:2:3".utf8)))
        #expect(!fingerprint.outputMatches("out/a", stamp: Array("1:2:4".utf8)))
        #expect(!fingerprint.outputMatches("out/a", stamp: Array("1:2:3:".utf8)))
        #expect(fingerprint.outputMatches("out/ab", stamp: Array("4:5:6".utf8)))
        #expect(fingerprint.outputMatches("b", stamp: Array("directory".utf8)))
        #expect(fingerprint.outputMatches("never/recorded", stamp: Array("7:8:9".utf8)), "nothing recorded: nothing to differ")
        let none = Fingerprint(fingerprint: "f", parts: [:], outputs: [:])
        #expect(none.outputMatches("out/a", stamp: []))
    }
}

/// Stamps read through open directories give what `FileHasher.describeStamp(of:)` gives.
@Suite struct StampReaderTests {
    @Test func everyKindOfPathGetsTheSameStampAsByPath() throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-stamps")
        try directory.write("a.txt", "a\n")
        try directory.makeDirectory("sub")
        try directory.write("sub/b.txt", "bb\n")
        let reader = StampReader()
        var stamp: [UInt8] = []
        let current = FileManager.default.currentDirectoryPath
        let paths = [
            directory.file("a.txt"), directory.file("sub/b.txt"), directory.file("sub"), directory.file("missing"),
            directory.file("nodirectory/x"), directory.file("sub/../a.txt"), "/", "relative-that-does-not-exist",
            current + "/Package.swift",
        ]
        for _ in 0..<2 {  // the second time through the directories already open
            for path in paths {
                reader.describeStamp(of: path, into: &stamp)
                #expect(String(decoding: stamp, as: UTF8.self) == FileHasher.describeStamp(of: path), "\(path)")
            }
        }
        try directory.write("sub/b.txt", "changed, longer\n")
        reader.describeStamp(of: directory.file("sub/b.txt"), into: &stamp)
        #expect(String(decoding: stamp, as: UTF8.self) == FileHasher.describeStamp(of: directory.file("sub/b.txt")))
        #expect(FileHasher.describeStamp(of: directory.file("missing")) == "none")
        #expect(FileHasher.describeStamp(of: directory.file("sub")) == "directory")
    }
}
