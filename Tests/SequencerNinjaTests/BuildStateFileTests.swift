import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

@testable import SequencerNinja

@Suite struct BuildStateFileTests {
    let entry = BuildState.FileEntry(stamp: FileStamp(size: 3, modified: 1_000, inode: 7), digest: Digest(1, 2, 3, 4))

    @Test func whatIsAppendedIsReadBackAndALaterRecordWins() throws {
        let directory = try TemporaryDirectory(prefix: "ninja-state")
        defer { directory.remove() }
        let file = BuildStateFile(path: directory.file("state"))
        #expect(!file.load().existed)
        var writer = try #require(BuildStateWriter(path: file.path, state: BuildState(), appendingTo: nil))
        writer.appendFile("src/a.c", entry)
        writer.appendEdge("a.o", Digest(5, 6, 7, 8))
        writer.close()
        var appender = try #require(BuildStateWriter(path: file.path, state: BuildState(), appendingTo: file.load()))
        appender.appendEdge("a.o", Digest(9, 9, 9, 9))
        appender.appendEdge("b.o", Digest(1, 1, 1, 1))
        appender.forgetEdge("b.o")
        appender.close()
        let loaded = file.load()
        #expect(loaded.problem == nil)
        #expect(loaded.state.files == ["src/a.c": entry])
        #expect(loaded.state.edges == ["a.o": Digest(9, 9, 9, 9)])
    }

    /// The file is read a megabyte at a time: records that straddle the pieces read whole,
    /// including one longer than a piece.
    @Test func aFileOfSeveralPiecesIsReadWhole() throws {
        let directory = try TemporaryDirectory(prefix: "ninja-state")
        let file = BuildStateFile(path: directory.file("state"))
        var writer = try #require(BuildStateWriter(path: file.path, state: BuildState(), appendingTo: nil))
        var expected: [String: Digest] = [:]
        for index in 0..<40_000 {
            let path = "obj/dir\(index % 97)/a-rather-long-name-for-object-\(index).o"
            expected[path] = Digest(UInt64(index), 1, 2, 3)
            writer.appendEdge(path, Digest(UInt64(index), 1, 2, 3))
            if index == 20_000 {
                let long = String(repeating: "x", count: 3 << 20)
                expected[long] = Digest(7, 7, 7, 7)
                writer.appendEdge(long, Digest(7, 7, 7, 7))
            }
        }
        writer.close()
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0 > 6 << 20)
        let loaded = file.load()
        #expect(loaded.problem == nil)
        #expect(loaded.state.edges.count == expected.count)
        #expect(loaded.state.edges == expected)
    }

    @Test func aDamagedOrCutRecordEndsTheReadingThere() throws {
        let directory = try TemporaryDirectory(prefix: "ninja-state")
        defer { directory.remove() }
        let file = BuildStateFile(path: directory.file("state"))
        var writer = try #require(BuildStateWriter(path: file.path, state: BuildState(), appendingTo: nil))
        writer.appendEdge("a.o", Digest(1, 2, 3, 4))
        writer.flush()
        let good = try Data(contentsOf: URL(fileURLWithPath: file.path)).count
        writer.appendEdge("b.o", Digest(5, 6, 7, 8))
        writer.close()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file.path))
        // Cut in the middle of the second edge's record.
        try bytes.prefix(bytes.count - 10).write(to: URL(fileURLWithPath: file.path))
        let cut = file.load()
        #expect(cut.problem == "cut short")
        #expect(cut.state.edges == ["a.o": Digest(1, 2, 3, 4)])
        // A flipped byte in the second record.
        bytes[good + 5] ^= 0x40  // in the path record of b.o
        try bytes.write(to: URL(fileURLWithPath: file.path))
        let damaged = file.load()
        #expect(damaged.problem == "damaged")
        #expect(damaged.state.edges == ["a.o": Digest(1, 2, 3, 4)])
        try Data("not a state".utf8).write(to: URL(fileURLWithPath: file.path))
        #expect(file.load().problem == "not a state file of this version")
    }

    @Test func randomBytesNeverCrashTheReader() throws {
        let directory = try TemporaryDirectory(prefix: "ninja-state")
        defer { directory.remove() }
        let file = BuildStateFile(path: directory.file("state"))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var bytes = BuildStateFile.header
            for _ in 0..<Int.random(in: 0..<200, using: &generator) { bytes.append(UInt8.random(in: 0...255, using: &generator)) }
            try Data(bytes).write(to: URL(fileURLWithPath: file.path))
            let loaded = file.load()
            #expect(loaded.existed)
        }
    }
}
