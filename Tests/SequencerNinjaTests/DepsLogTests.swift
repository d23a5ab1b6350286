import Foundation
import Testing

@testable import SequencerNinja

/// `.ninja_deps`: what ninja's deps_log_test.cc checks, the exact bytes, and damaged files.
struct DepsLogTests {
    /// A log with out.o ← foo.h bar.h (mtime 1) and out2.o ← foo.h bar2.h (mtime 2), and its file.
    static func twoOutputs() throws -> (log: NinjaDepsLog, file: [UInt8]) {
        var log = NinjaDepsLog()
        var file = NinjaDepsLog.header
        file += try log.record(output: "out.o", mtime: 1, inputs: ["foo.h", "bar.h"])
        file += try log.record(output: "out2.o", mtime: 2, inputs: ["foo.h", "bar2.h"])
        return (log, file)
    }

    static func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    @Test func writtenDepsReadBack() throws {
        let (log, file) = try Self.twoOutputs()
        #expect(log.deps(of: "out.o") == NinjaDepsLog.PathDeps(mtime: 1, inputs: ["foo.h", "bar.h"]))
        let decoding = NinjaDepsLog.decode(file)
        #expect(decoding.warning == nil)
        #expect(decoding.repair == .none)
        let read = decoding.log
        #expect(read.paths == log.paths)
        #expect(read.paths == ["out.o", "foo.h", "bar.h", "out2.o", "bar2.h"])
        for (id, path) in log.paths.enumerated() {
            #expect(read.id(of: path) == Int32(id))
            #expect(read.path(ofID: Int32(id)) == path)
            #expect(read.deps(ofID: Int32(id)) == log.deps(ofID: Int32(id)))
        }
        #expect(read.deps(of: "out2.o") == NinjaDepsLog.PathDeps(mtime: 2, inputs: ["foo.h", "bar2.h"]))
        #expect(read.deps(of: "foo.h") == nil)
        #expect(read.deps(of: "unknown") == nil)
        #expect(read.outputs == ["out.o", "out2.o"])
        #expect(read.path(ofID: 5) == nil)
        #expect(read.path(ofID: -1) == nil)
    }

    @Test func recordsAreNinjasBytes() throws {
        var log = NinjaDepsLog()
        let bytes = try log.record(output: "out.o", mtime: 0x1_0000_0002, inputs: ["ab.h"])
        var expected: [UInt8] = []
        // "out.o": 5 bytes, 3 of padding, then ~0.
        expected += Self.word(12) + Array("out.o".utf8) + [0, 0, 0] + Self.word(~0)
        // "ab.h": 4 bytes, no padding, then ~1.
        expected += Self.word(8) + Array("ab.h".utf8) + Self.word(~1)
        // The deps record: 3 + 1 words, high bit set; output 0, mtime low then high, input 1.
        expected += Self.word(16 | 0x8000_0000) + Self.word(0) + Self.word(2) + Self.word(1) + Self.word(1)
        #expect(bytes == expected)
        #expect(NinjaDepsLog.header == Array("# ninjadeps\n".utf8) + [4, 0, 0, 0])
    }

    @Test func negativeMtimeRoundTrips() throws {
        var log = NinjaDepsLog()
        let file = NinjaDepsLog.header + (try log.record(output: "o", mtime: -2, inputs: []))
        #expect(NinjaDepsLog.decode(file).log.deps(of: "o") == NinjaDepsLog.PathDeps(mtime: -2, inputs: []))
    }

    @Test func manyDeps() throws {
        let inputs = (0..<100_000).map { "file\($0).h" }
        var log = NinjaDepsLog()
        let file = NinjaDepsLog.header + (try log.record(output: "out.o", mtime: 1, inputs: inputs))
        #expect(log.deps(of: "out.o")?.inputs.count == 100_000)
        let read = NinjaDepsLog.decode(file).log
        #expect(read.deps(of: "out.o")?.inputs == inputs)
    }

    @Test func recordTooLargeForNinjaIsRefused() throws {
        var log = NinjaDepsLog()
        let tooMany = (0..<(NinjaDepsLog.maximumRecordSize / 4)).map { "f\($0)" }
        #expect(throws: NinjaLogFileError(code: ERANGE)) { try log.record(output: "out.o", mtime: 1, inputs: tooMany) }
        let longPath = String(repeating: "p", count: NinjaDepsLog.maximumRecordSize)
        #expect(throws: NinjaLogFileError(code: ERANGE)) { try log.record(output: "out.o", mtime: 1, inputs: [longPath]) }
        #expect(throws: NinjaLogFileError(code: EINVAL)) { try log.record(output: "out.o", mtime: 1, inputs: [""]) }
        // Nothing was recorded.
        #expect(log.paths.isEmpty)
        // The largest list that fits is recorded.
        let fits = (0..<(NinjaDepsLog.maximumRecordSize / 4 - 3)).map { "f\($0)" }
        #expect(try !log.record(output: "out.o", mtime: 1, inputs: fits).isEmpty)
    }

    @Test func recordingTheSameDepsAgainWritesNothing() throws {
        var (log, file) = try Self.twoOutputs()
        var read = NinjaDepsLog.decode(file).log
        #expect(try read.record(output: "out.o", mtime: 1, inputs: ["foo.h", "bar.h"]).isEmpty)
        #expect(try log.record(output: "out.o", mtime: 1, inputs: ["foo.h", "bar.h"]).isEmpty)
        // A different mtime, order, or input is written.
        #expect(try !read.record(output: "out.o", mtime: 3, inputs: ["foo.h", "bar.h"]).isEmpty)
        #expect(try !read.record(output: "out.o", mtime: 3, inputs: ["bar.h", "foo.h"]).isEmpty)
        let withNewPath = try read.record(output: "out.o", mtime: 3, inputs: ["bar.h", "new.h"])
        // One path record, one deps record.
        #expect(withNewPath.count == (4 + 8 + 4) + (4 + 12 + 8))
        file += withNewPath
        #expect(NinjaDepsLog.decode(file).log.deps(of: "out.o") == NinjaDepsLog.PathDeps(mtime: 3, inputs: ["bar.h", "new.h"]))
    }

    @Test func recompactionKeepsTheLatestDepsOfLiveOutputs() throws {
        // ninja's test: two outputs, then smaller deps for one, then recompaction.
        var log = NinjaDepsLog()
        var file = NinjaDepsLog.header
        file += try log.record(output: "out.o", mtime: 1, inputs: ["foo.h", "bar.h"])
        file += try log.record(output: "other_out.o", mtime: 1, inputs: ["foo.h", "baz.h"])
        let firstSize = file.count

        var second = NinjaDepsLog.decode(file).log
        file += try second.record(output: "out.o", mtime: 1, inputs: ["foo.h"])
        #expect(file.count > firstSize)

        let directory = try ReferenceNinjaDirectory()
        let path = directory.file(".ninja_deps")
        try directory.write(".ninja_deps", bytes: file)
        var third = try NinjaDepsLog.load(from: path).log
        #expect(third.deps(of: "out.o") == NinjaDepsLog.PathDeps(mtime: 1, inputs: ["foo.h"]))
        #expect(third.deps(of: "other_out.o") == NinjaDepsLog.PathDeps(mtime: 1, inputs: ["foo.h", "baz.h"]))
        #expect(third.loadedRecordCount == 3)
        #expect(third.loadedOutputCount == 2)
        try third.recompact(at: path) { ["out.o", "other_out.o"].contains($0) }
        // Still valid in memory, with the new ids.
        #expect(third.deps(of: "out.o") == NinjaDepsLog.PathDeps(mtime: 1, inputs: ["foo.h"]))
        #expect(third.deps(of: "other_out.o") == NinjaDepsLog.PathDeps(mtime: 1, inputs: ["foo.h", "baz.h"]))
        #expect(third.paths == ["out.o", "foo.h", "other_out.o", "baz.h"])
        #expect(third.id(of: "bar.h") == nil)
        let compacted = try directory.read(".ninja_deps")
        #expect(compacted.count < file.count)
        #expect(NinjaDepsLog.decode(compacted).log.paths == third.paths)
        #expect(!directory.exists(".ninja_deps.recompact"))

        // With no live output everything goes, the inputs' ids too.
        var fourth = try NinjaDepsLog.load(from: path).log
        try fourth.recompact(at: path) { _ in false }
        #expect(fourth.deps(of: "out.o") == nil)
        #expect(fourth.deps(of: "other_out.o") == nil)
        #expect(fourth.id(of: "foo.h") == nil)
        #expect(fourth.id(of: "baz.h") == nil)
        #expect(try directory.read(".ninja_deps") == NinjaDepsLog.header)
    }

    @Test func recompactionThresholdIsNinjas() throws {
        var log = NinjaDepsLog()
        var file = NinjaDepsLog.header
        for mtime in 0..<1001 { file += try log.record(output: "out.o", mtime: Int64(mtime), inputs: ["a.h"]) }
        let many = NinjaDepsLog.decode(file).log
        #expect(many.loadedRecordCount == 1001)
        #expect(many.needsRecompaction)
        // 1000 records are not yet "more than 1000".
        var fewer = NinjaDepsLog()
        var fewerFile = NinjaDepsLog.header
        for mtime in 0..<1000 { fewerFile += try fewer.record(output: "out.o", mtime: Int64(mtime), inputs: ["a.h"]) }
        #expect(!NinjaDepsLog.decode(fewerFile).log.needsRecompaction)
    }

    @Test func badHeadersStartOver() throws {
        let headers: [[UInt8]] = [
            [],
            Array("# ninjad".utf8),
            Array("# ninjadeps\n".utf8),
            Array("# ninjadeps\n".utf8) + [1, 2],
            Array("# ninjadeps\n".utf8) + [1, 2, 3, 4],
            Array("# ninjadeps\n".utf8) + [3, 0, 0, 0],
            Array("# ninjadepz\n".utf8) + [4, 0, 0, 0],
            Array("#ninjadeps\n".utf8) + [4, 0, 0, 0],
        ]
        for header in headers {
            let decoding = NinjaDepsLog.decode(header)
            #expect(decoding.warning == "bad deps log signature or version; starting over", "\(header)")
            #expect(decoding.repair == .delete)
            #expect(decoding.log.paths.isEmpty)
        }
        let versionOne = NinjaDepsLog.decode(Array("# ninjadeps\n".utf8) + [1, 0, 0, 0])
        #expect(versionOne.warning == "deps log version change; rebuilding")
        #expect(versionOne.repair == .delete)

        let directory = try ReferenceNinjaDirectory()
        try directory.write(".ninja_deps", bytes: Array("# ninjadeps\n".utf8) + [3, 0, 0, 0])
        let load = try NinjaDepsLog.load(from: directory.file(".ninja_deps"))
        #expect(load.warning == NinjaDepsLog.badHeaderWarning)
        #expect(!load.fileExists)
        #expect(!directory.exists(".ninja_deps"))
    }

    @Test func truncatedFilesLoseRecordsFromTheEnd() throws {
        let (_, file) = try Self.twoOutputs()
        var pathCount = 5
        var depsCount = 2
        for size in stride(from: file.count, to: 0, by: -1) {
            let decoding = NinjaDepsLog.decode(Array(file[0..<size]))
            if decoding.repair == .delete { break }  // the header itself is cut
            let log = decoding.log
            #expect(log.paths.count <= pathCount)
            pathCount = log.paths.count
            #expect(log.outputs.count <= depsCount)
            depsCount = log.outputs.count
            // Every record kept reads back the same from the truncated file.
            if case .truncate(let kept) = decoding.repair {
                let again = NinjaDepsLog.decode(Array(file[0..<kept]))
                #expect(again.repair == .none)
                #expect(again.log.paths == log.paths)
            }
        }
        #expect(pathCount == 0)
        #expect(depsCount == 0)
    }

    @Test func truncatedLogRecoversAndTakesNewRecords() throws {
        let (_, file) = try Self.twoOutputs()
        let directory = try ReferenceNinjaDirectory()
        let path = directory.file(".ninja_deps")
        try directory.write(".ninja_deps", bytes: Array(file.dropLast(2)))

        var load = try NinjaDepsLog.load(from: path)
        #expect(load.warning == "premature end of file; recovering")
        #expect(load.fileExists)
        // The damaged record is gone, from memory and from the file.
        #expect(load.log.deps(of: "out2.o") == nil)
        #expect(load.log.deps(of: "out.o") != nil)
        let appender = NinjaLogAppender.depsLog(at: path)
        try appender.append(try load.log.record(output: "out2.o", mtime: 3, inputs: ["foo.h", "bar2.h"]))
        try appender.close()

        let again = try NinjaDepsLog.load(from: path)
        #expect(again.warning == nil)
        #expect(again.log.deps(of: "out2.o") == NinjaDepsLog.PathDeps(mtime: 3, inputs: ["foo.h", "bar2.h"]))
        #expect(again.log.deps(of: "out.o") == NinjaDepsLog.PathDeps(mtime: 1, inputs: ["foo.h", "bar.h"]))
    }

    @Test func damagedRecordsCutTheLogThere() throws {
        var log = NinjaDepsLog()
        let good = NinjaDepsLog.header + (try log.record(output: "out.o", mtime: 1, inputs: ["a.h"]))
        let damaged: [(name: String, tail: [UInt8])] = [
            ("input id out of range", Self.word(16 | 0x8000_0000) + Self.word(0) + Self.word(1) + Self.word(0) + Self.word(7)),
            ("negative input id", Self.word(16 | 0x8000_0000) + Self.word(0) + Self.word(1) + Self.word(0) + Self.word(UInt32.max)),
            ("output id out of range", Self.word(12 | 0x8000_0000) + Self.word(9) + Self.word(1) + Self.word(0)),
            ("deps record too short", Self.word(8 | 0x8000_0000) + Self.word(0) + Self.word(1)),
            ("deps record not in words", Self.word(13 | 0x8000_0000) + Self.word(0) + Self.word(1) + Self.word(0) + [0]),
            ("path record checksum", Self.word(8) + Array("b.h\0".utf8) + Self.word(~5)),
            ("path record of padding only", Self.word(7) + [0, 0, 0] + Self.word(~2)),
            ("path record without path", Self.word(4) + Self.word(~2)),
            ("path record for a known path", Self.word(8) + Array("a.h\0".utf8) + Self.word(~2)),
            ("record over the limit", Self.word(UInt32(NinjaDepsLog.maximumRecordSize + 1)) + [1, 2, 3]),
            ("record past the end", Self.word(100) + Array("abc".utf8)),
        ]
        for (name, tail) in damaged {
            let decoding = NinjaDepsLog.decode(good + tail)
            #expect(decoding.warning == NinjaDepsLog.damagedTailWarning, "\(name)")
            #expect(decoding.repair == .truncate(toByteCount: good.count), "\(name)")
            #expect(decoding.log.paths == ["out.o", "a.h"], "\(name)")
            #expect(decoding.log.deps(of: "out.o") == NinjaDepsLog.PathDeps(mtime: 1, inputs: ["a.h"]), "\(name)")
        }
    }

    @Test func strayBytesAfterTheLastRecordAreCutQuietly() throws {
        var log = NinjaDepsLog()
        let good = NinjaDepsLog.header + (try log.record(output: "out.o", mtime: 1, inputs: ["a.h"]))
        for count in 1...3 {
            let decoding = NinjaDepsLog.decode(good + [UInt8](repeating: 0xAB, count: count))
            #expect(decoding.warning == nil)
            #expect(decoding.repair == .truncate(toByteCount: good.count))
            #expect(decoding.log.paths == ["out.o", "a.h"])
        }
    }

    @Test func laterDepsOfAnOutputReplaceEarlierOnes() throws {
        var log = NinjaDepsLog()
        var file = NinjaDepsLog.header
        file += try log.record(output: "out.o", mtime: 1, inputs: ["a.h", "b.h"])
        file += try log.record(output: "out.o", mtime: 2, inputs: ["c.h"])
        let read = NinjaDepsLog.decode(file).log
        #expect(read.deps(of: "out.o") == NinjaDepsLog.PathDeps(mtime: 2, inputs: ["c.h"]))
        #expect(read.loadedRecordCount == 2)
        #expect(read.loadedOutputCount == 1)
    }

    @Test func firstOutputDependingOnAnInput() throws {
        let (log, _) = try Self.twoOutputs()
        #expect(log.firstOutput(dependingOn: "foo.h") == "out.o")
        #expect(log.firstOutput(dependingOn: "bar.h") == "out.o")
        #expect(log.firstOutput(dependingOn: "bar2.h") == "out2.o")
        #expect(log.firstOutput(dependingOn: "out.o") == nil)
        #expect(log.firstOutput(dependingOn: "unknown.h") == nil)
    }

    @Test func closingAnUnusedAppenderCreatesTheFileWithItsHeader() throws {
        let directory = try ReferenceNinjaDirectory()
        let appender = NinjaLogAppender.depsLog(at: directory.file(".ninja_deps"))
        try appender.close()
        #expect(try directory.read(".ninja_deps") == NinjaDepsLog.header)
        let load = try NinjaDepsLog.load(from: directory.file(".ninja_deps"))
        #expect(load.warning == nil)
        #expect(load.fileExists)
    }
}
