import Foundation
import Testing

@testable import SequencerNinja

/// `.ninja_log`: what ninja's build_log_test.cc checks, and what ninja's reader does with odd
/// content.
struct NinjaLogTests {
    static func decode(_ text: String, readableVersions: ClosedRange<Int> = NinjaBuildLog.readableVersions) -> NinjaLogDecoding<NinjaBuildLog> {
        NinjaBuildLog.decode(Array(text.utf8), readableVersions: readableVersions)
    }

    static func entry(_ output: String, _ command: String, start: Int32, end: Int32, mtime: Int64 = 0) -> NinjaBuildLogEntry {
        NinjaBuildLogEntry(output: output, commandHash: MurmurHash64A.hash(command), startTime: start, endTime: end, mtime: mtime)
    }

    @Test func writtenEntriesReadBack() {
        var log = NinjaBuildLog()
        log.record(Self.entry("out", "cat mid > out", start: 15, end: 18))
        log.record(Self.entry("mid", "cat in > mid", start: 20, end: 25, mtime: 1_700_000_000_123_456_789))
        let decoding = NinjaBuildLog.decode(log.encoded(version: 5))
        #expect(decoding.warning == nil)
        #expect(decoding.repair == .none)
        #expect(decoding.log.version == 5)
        #expect(decoding.log.entries == log.entries)
        #expect(decoding.log[output: "out"]?.startTime == 15)
        #expect(decoding.log[output: "mid"]?.mtime == 1_700_000_000_123_456_789)
        #expect(decoding.log[output: "in"] == nil)
    }

    @Test func linesAreNinjasFormat() {
        let entry = NinjaBuildLogEntry(output: "out dir/a b.o", commandHash: 0x00AB_CDEF_0123_4567, startTime: -1, endTime: 2_000_000_000, mtime: -5)
        #expect(String(decoding: NinjaBuildLog.line(for: entry), as: UTF8.self) == "-1\t2000000000\t-5\tout dir/a b.o\tabcdef01234567\n")
        #expect(String(decoding: NinjaBuildLog.header(version: 5), as: UTF8.self) == "# ninja log v5\n")
        #expect(String(decoding: NinjaBuildLog().encoded(version: 7), as: UTF8.self) == "# ninja log v7\n")
    }

    @Test func firstAppendWritesTheHeaderOnce() throws {
        let directory = try ReferenceNinjaDirectory()
        let path = directory.file(".ninja_log")
        // Closing creates the file with its header even when nothing was appended.
        let first = NinjaLogAppender.buildLog(at: path)
        try first.close()
        #expect(String(decoding: try directory.read(".ninja_log"), as: UTF8.self) == "# ninja log v5\n")
        // Opening it again does not add a second header.
        let second = NinjaLogAppender.buildLog(at: path, version: 6)
        try second.append(NinjaBuildLog.line(for: Self.entry("a", "x", start: 1, end: 2)))
        try second.close()
        let text = String(decoding: try directory.read(".ninja_log"), as: UTF8.self)
        #expect(text == "# ninja log v5\n1\t2\t0\ta\t\(String(MurmurHash64A.hash("x"), radix: 16))\n")
    }

    @Test func laterLineForAnOutputWins() {
        let decoding = Self.decode("# ninja log v4\n0\t1\t2\tout\tcommand abc\n3\t4\t5\tout\tcommand def\n")
        #expect(decoding.warning == nil)
        #expect(decoding.log.entries.count == 1)
        #expect(decoding.log[output: "out"] == Self.entry("out", "command def", start: 3, end: 4, mtime: 5))
        #expect(decoding.log.loadedLineCount == 2)
        #expect(decoding.log.loadedOutputCount == 1)
    }

    @Test func recordReplacesAnOutputsEntry() {
        var log = NinjaBuildLog()
        log.record(Self.entry("out", "one", start: 1, end: 2))
        log.record(Self.entry("out.d", "one", start: 1, end: 2))
        log.record(Self.entry("out", "two", start: 3, end: 4))
        #expect(log.entries.map(\.output) == ["out", "out.d"])
        #expect(log[output: "out"] == Self.entry("out", "two", start: 3, end: 4))
    }

    @Test func everyTruncationReadsWithoutFailing() throws {
        var log = NinjaBuildLog()
        log.record(Self.entry("out", "cat mid > out", start: 15, end: 18))
        log.record(Self.entry("mid", "cat in > mid", start: 20, end: 25))
        let file = log.encoded(version: 5)
        for size in stride(from: file.count, to: 0, by: -1) {
            let decoding = NinjaBuildLog.decode(Array(file[0..<size]))
            // Whole lines are read, the unfinished one is dropped.
            let wholeLines = file[0..<size].split(separator: 0x0A, omittingEmptySubsequences: false).count - 1
            #expect(decoding.log.entries.count == max(0, wholeLines - 1), "size \(size)")
            if size == file.count || file[size - 1] == 0x0A {
                #expect(decoding.repair == .none)
            } else if let lastNewline = file[0..<size].lastIndex(of: 0x0A) {
                #expect(decoding.repair == .truncate(toByteCount: lastNewline + 1))
            }
        }
    }

    @Test func appendingAfterAnUnfinishedLineReadsBack() throws {
        let directory = try ReferenceNinjaDirectory()
        let path = directory.file(".ninja_log")
        // A build that stopped mid-line.
        try directory.write(".ninja_log", "# ninja log v5\n1\t2\t0\ta\tabc\n3\t4\t0\tb\td")
        let load = try NinjaBuildLog.load(from: path)
        #expect(load.log.entries.map(\.output) == ["a"])
        let appender = NinjaLogAppender.buildLog(at: path)
        try appender.append(NinjaBuildLog.line(for: Self.entry("c", "x", start: 5, end: 6)))
        try appender.close()
        let again = try NinjaBuildLog.load(from: path)
        #expect(again.log.entries.map(\.output) == ["a", "c"])
        #expect(again.log[output: "c"]?.startTime == 5)
    }

    @Test func tooOldVersionStartsOver() throws {
        let decoding = Self.decode("# ninja log v3\n123 456 0 out command\n")
        #expect(decoding.warning == "build log version invalid, perhaps due to being too old; starting over")
        #expect(decoding.warning?.contains("version") == true)
        #expect(decoding.repair == .delete)
        #expect(decoding.log.entries.isEmpty)

        let directory = try ReferenceNinjaDirectory()
        try directory.write(".ninja_log", "# ninja log v3\n123 456 0 out command\n")
        let load = try NinjaBuildLog.load(from: directory.file(".ninja_log"))
        #expect(load.warning == NinjaBuildLog.tooOldWarning)
        #expect(!load.fileExists)
        #expect(!directory.exists(".ninja_log"))
    }

    @Test func missingOrUnreadableHeaderStartsOver() {
        for text in ["not a log\n1\t2\t3\tout\tabc\n", "# ninja log\n", "# ninja log v0\n", "# ninja log v-5\n", "\n"] {
            let decoding = Self.decode(text)
            #expect(decoding.warning == NinjaBuildLog.tooOldWarning, "\(text)")
            #expect(decoding.repair == .delete)
        }
    }

    @Test func headerIsReadAsScanfReadsIt() {
        // A blank in the pattern matches any run of white space, or none.
        #expect(Self.decode("#ninja  log\tv5\n").log.version == 5)
        #expect(Self.decode("# ninja log v 6\n").log.version == 6)
        #expect(Self.decode("# ninja log v5 and more\n").log.version == 5)
        #expect(Self.decode("# ninja log v5").log.version == 5)
    }

    @Test func newerVersionsAreReadAndUnknownOnesStartOver() {
        let murmur = String(MurmurHash64A.hash("touch out"), radix: 16)
        let rapid = String(RapidHash.hash("touch out"), radix: 16)
        let v6 = Self.decode("# ninja log v6\n1\t2\t3\tout\t\(murmur)\n")
        #expect(v6.warning == nil)
        #expect(v6.log.version == 6)
        #expect(v6.log[output: "out"]?.commandHash == v6.log.commandHashFunction.hash("touch out"))
        let v7 = Self.decode("# ninja log v7\n1\t2\t3\tout\t\(rapid)\n")
        #expect(v7.log.version == 7)
        #expect(v7.log[output: "out"]?.commandHash == v7.log.commandHashFunction.hash("touch out"))

        let v8 = Self.decode("# ninja log v8\n1\t2\t3\tout\t\(rapid)\n")
        #expect(v8.warning == "build log version is too new; starting over")
        #expect(v8.repair == .delete)
        #expect(v8.log.entries.isEmpty)
        // A caller that reads only what ninja 1.13 reads.
        let old = Self.decode("# ninja log v5\n1\t2\t3\tout\t\(murmur)\n", readableVersions: 7...7)
        #expect(old.warning == NinjaBuildLog.tooOldWarning)
    }

    @Test func spacesInOutputs() {
        let decoding = Self.decode("# ninja log v4\n123\t456\t456\tout with space\tcommand\n")
        #expect(decoding.log[output: "out with space"] == Self.entry("out with space", "command", start: 123, end: 456, mtime: 456))
    }

    @Test func secondHeaderIsIgnored() {
        let decoding = Self.decode("# ninja log v4\n123\t456\t456\tout\tcommand\n# ninja log v4\n456\t789\t789\tout2\tcommand2\n")
        #expect(decoding.warning == nil)
        #expect(decoding.log[output: "out"] == Self.entry("out", "command", start: 123, end: 456, mtime: 456))
        #expect(decoding.log[output: "out2"] == Self.entry("out2", "command2", start: 456, end: 789, mtime: 789))
        #expect(decoding.log.entries.count == 2)
    }

    @Test func rewritingChangesRecordedMtimes() throws {
        let directory = try ReferenceNinjaDirectory()
        let path = directory.file(".ninja_log")
        try directory.write(".ninja_log", "# ninja log v5\n1\t2\t3\tout\tabc\n")
        var log = try NinjaBuildLog.load(from: path).log
        #expect(log[output: "out"]?.mtime == 3)
        var entry = try #require(log[output: "out"])
        entry.mtime = 4
        log.record(entry)
        try log.rewrite(at: path, version: 5)
        #expect(try NinjaBuildLog.load(from: path).log[output: "out"]?.mtime == 4)
        #expect(!directory.exists(".ninja_log.recompact"))
    }

    @Test func veryLongLineIsSkippedAndTheNextOneRead() {
        var text = "# ninja log v4\n123\t456\t456\tout\tcommand start"
        text += String(repeating: " more_command", count: (512 << 10) / 13)
        text += "\n456\t789\t789\tout2\tcommand2\n"
        let decoding = Self.decode(text)
        #expect(decoding.warning == nil)
        #expect(decoding.log[output: "out"] == nil)
        #expect(decoding.log[output: "out2"] == Self.entry("out2", "command2", start: 456, end: 789, mtime: 789))
    }

    @Test func ofALineOverTheBufferOnlyTheEndIsRead() {
        // ninja's 256 KiB buffer: the part of a line after its last whole buffer reads as a line.
        let tail = "7\t8\t9\ttail\tabc"
        let head = String(repeating: "x", count: 2 * NinjaBuildLog.lineBufferSize)
        let decoding = Self.decode("# ninja log v5\n" + head + tail + "\n")
        #expect(decoding.log.entries.map(\.output) == ["tail"])
        #expect(decoding.log[output: "tail"]?.commandHash == 0xABC)
        // One byte shorter than a buffer: the whole line is read.
        let whole = "1\t2\t3\tlong\t" + String(repeating: "f", count: NinjaBuildLog.lineBufferSize - 12)
        #expect(Self.decode("# ninja log v5\n" + whole + "\n").log[output: "long"] != nil)
    }

    @Test func numbersAreReadAsCReadsThem() {
        let decoding = Self.decode(
            "# ninja log v5\n"
                + " 12junk\t+7\t-3\ta\t 0xFF\n"
                + "x\t99999999999\t99999999999999999999\tb\t-1\n"
                + "1\t2\t3\tc\t1ffffffffffffffff\n"
                + "1\t2\t3\td\tabc\textra\tfields\n"
                + "1\t2\t3\te\tABC\r\n"
                + "1\t2\t\t\t\n"
                + "no tabs here\n"
                + "1\t2\t3 no fourth tab\n"
        )
        #expect(decoding.log[output: "a"] == NinjaBuildLogEntry(output: "a", commandHash: 0xFF, startTime: 12, endTime: 7, mtime: -3))
        // atoi keeps the low 32 bits of an overflowing long; strtoll stops at its limit.
        #expect(decoding.log[output: "b"] == NinjaBuildLogEntry(output: "b", commandHash: UInt64.max, startTime: 0, endTime: Int32(truncatingIfNeeded: 99_999_999_999 as Int64), mtime: Int64.max))
        #expect(decoding.log[output: "c"]?.commandHash == UInt64.max)
        #expect(decoding.log[output: "d"]?.commandHash == 0xABC)
        #expect(decoding.log[output: "e"]?.commandHash == 0xABC)
        #expect(decoding.log[output: ""] == NinjaBuildLogEntry(output: "", commandHash: 0, startTime: 1, endTime: 2, mtime: 0))
        #expect(decoding.log.entries.count == 6)
    }

    @Test func emptyFileIsAnEmptyLog() {
        let decoding = NinjaBuildLog.decode([])
        #expect(decoding.warning == nil)
        #expect(decoding.repair == .none)
        #expect(decoding.log.version == nil)
        #expect(!decoding.log.needsRecompaction(writingVersion: 5))
    }

    @Test func missingFileIsAnEmptyLog() throws {
        let directory = try ReferenceNinjaDirectory()
        let load = try NinjaBuildLog.load(from: directory.file(".ninja_log"))
        #expect(!load.fileExists)
        #expect(load.warning == nil)
        #expect(load.log.entries.isEmpty)
    }

    @Test func unreadableFileIsAnError() throws {
        let directory = try ReferenceNinjaDirectory()
        // A directory where the log should be.
        try FileManager.default.createDirectory(atPath: directory.file(".ninja_log"), withIntermediateDirectories: false)
        #expect(throws: NinjaLogFileError.self) { try NinjaBuildLog.load(from: directory.file(".ninja_log")) }
        do {
            _ = try NinjaBuildLog.load(from: directory.file(".ninja_log"))
        } catch {
            #expect(error.message == "Is a directory")
        }
    }

    @Test func recompactionKeepsOneLinePerLiveOutput() throws {
        let directory = try ReferenceNinjaDirectory()
        let path = directory.file(".ninja_log")
        let appender = NinjaLogAppender.buildLog(at: path)
        for index in 0..<200 {
            try appender.append(NinjaBuildLog.line(for: Self.entry("out", "cat in > out", start: 15, end: 18 + Int32(index))))
        }
        try appender.append(NinjaBuildLog.line(for: Self.entry("out2", "cat in > out2", start: 21, end: 22)))
        try appender.close()

        var log = try NinjaBuildLog.load(from: path).log
        #expect(log.entries.count == 2)
        #expect(log.loadedLineCount == 201)
        #expect(log.needsRecompaction(writingVersion: 5))
        try log.recompact(at: path, version: 5) { $0 == "out2" }
        #expect(log.entries.map(\.output) == ["out"])
        #expect(!log.needsRecompaction(writingVersion: 5))

        let reloaded = try NinjaBuildLog.load(from: path).log
        #expect(reloaded.entries == [Self.entry("out", "cat in > out", start: 15, end: 217)])
        #expect(reloaded.loadedLineCount == 1)
        #expect(!directory.exists(".ninja_log.recompact"))
    }

    @Test func recompactionFollowsNinjasRules() {
        var few = NinjaBuildLog(version: 5)
        for index in 0..<100 { few.record(Self.entry("out", "c", start: Int32(index), end: 0)); few.countLoadedLine(newOutput: index == 0) }
        // 100 lines are not yet "more than 100".
        #expect(!few.needsRecompaction(writingVersion: 5))
        few.countLoadedLine(newOutput: false)
        #expect(few.needsRecompaction(writingVersion: 5))

        // An older version is rewritten; a newer one with the same hash function is appended to.
        #expect(NinjaBuildLog(version: 4).needsRecompaction(writingVersion: 5))
        #expect(!NinjaBuildLog(version: 6).needsRecompaction(writingVersion: 5))
        #expect(NinjaBuildLog(version: 5).needsRecompaction(writingVersion: 6))
        // Lines hashed with MurmurHash64A cannot go into a version 7 file, nor the reverse.
        #expect(NinjaBuildLog(version: 7).needsRecompaction(writingVersion: 5))
        #expect(NinjaBuildLog(version: 6).needsRecompaction(writingVersion: 7))
        #expect(!NinjaBuildLog(version: 7).needsRecompaction(writingVersion: 7))
    }

    @Test func appenderSerialisesConcurrentAppends() async throws {
        let directory = try ReferenceNinjaDirectory()
        let path = directory.file(".ninja_log")
        let appender = NinjaLogAppender.buildLog(at: path)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    try? appender.append(NinjaBuildLog.line(for: Self.entry("out\(index)", "c\(index)", start: Int32(index), end: Int32(index))))
                }
            }
        }
        try appender.close()
        let log = try NinjaBuildLog.load(from: path).log
        #expect(log.entries.count == 64)
        #expect(log[output: "out17"] == Self.entry("out17", "c17", start: 17, end: 17))
    }
}
