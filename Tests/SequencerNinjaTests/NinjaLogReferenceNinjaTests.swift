import Foundation
import Testing

@testable import SequencerNinja

/// A scratch build directory and the real ninja (1.11.1 at /usr/bin/ninja), the counterpart the
/// log and depfile tests check their formats against. Tests that need it are skipped when it is
/// not installed.
final class ReferenceNinjaDirectory {
    static let executable = "/usr/bin/ninja"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "ninja-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
    }

    func write(_ name: String, bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
    }

    func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: file(name))))
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    /// Runs ninja in the directory, one command at a time (so that records come in the order of
    /// the manifest); returns its exit status and its output (stdout then stderr).
    @discardableResult
    func ninja(_ arguments: String...) throws -> (status: Int32, output: [UInt8]) {
        try run(arguments)
    }

    /// `ninja(_:)`'s output as text.
    func ninjaText(_ arguments: String...) throws -> (status: Int32, output: String) {
        let (status, output) = try run(arguments)
        return (status, String(decoding: output, as: UTF8.self))
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, output: [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["-j1"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: path)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, [UInt8](data))
    }
}

/// `.ninja_log` against the real ninja: ninja's hashes are ours, and ninja reads what we write.
@Suite(.enabled(if: ReferenceNinjaDirectory.isInstalled, "needs ninja at /usr/bin/ninja"))
struct NinjaLogReferenceNinjaTests {
    /// Commands of every length from 1 to 24 bytes (all tails of MurmurHash64A's 8-byte words),
    /// and a longer one.
    static let commands: [String] = [":", ":;"] + (3...24).map { length in
        ": " + String(repeating: "x", count: length - 2)
    } + ["touch out && echo a command line long enough for several words of the hash > /dev/null"]

    @Test func ourHashIsTheHashNinjaWritesForACommand() throws {
        let directory = try ReferenceNinjaDirectory()
        var manifest = ""
        for (index, command) in Self.commands.enumerated() {
            manifest += "rule r\(index)\n  command = \(command)\nbuild out\(index): r\(index)\n"
        }
        try directory.write("build.ninja", manifest)
        let build = try directory.ninjaText()
        #expect(build.status == 0, "\(build.output)")

        let load = try NinjaBuildLog.load(from: directory.file(".ninja_log"))
        #expect(load.warning == nil)
        #expect(load.log.version == 5)
        #expect(load.log.entries.count == Self.commands.count)
        for (index, command) in Self.commands.enumerated() {
            let entry = try #require(load.log[output: "out\(index)"])
            #expect(entry.commandHash == MurmurHash64A.hash(command), "\(command)")
            #expect(entry.endTime >= entry.startTime)
        }
        // The line as ninja printed it is the line we print for the same entry.
        let text = String(decoding: try directory.read(".ninja_log"), as: UTF8.self)
        let last = try #require(load.log[output: "out\(Self.commands.count - 1)"])
        #expect(text.contains(String(decoding: NinjaBuildLog.line(for: last), as: UTF8.self)))
    }

    @Test func ninjaFindsNothingToDoWithTheLogWeRewrote() throws {
        let directory = try ReferenceNinjaDirectory()
        try directory.write("build.ninja", "rule touch\n  command = touch $out\nbuild a: touch\nbuild b: touch a\n")
        #expect(try directory.ninjaText().status == 0)

        // Rewrite the log ourselves (one line per output, in our order).
        var log = try NinjaBuildLog.load(from: directory.file(".ninja_log")).log
        try log.rewrite(at: directory.file(".ninja_log"), version: 5)
        let again = try directory.ninjaText("-d", "explain")
        #expect(again.output.contains("no work to do"), "\(again.output)")

        // A wrong hash makes ninja run the command again: it does read our lines.
        let entry = try #require(log[output: "b"])
        log.record(NinjaBuildLogEntry(
            output: "b", commandHash: entry.commandHash ^ 1, startTime: entry.startTime,
            endTime: entry.endTime, mtime: entry.mtime))
        try log.rewrite(at: directory.file(".ninja_log"), version: 5)
        let rebuilt = try directory.ninjaText("-d", "explain")
        #expect(rebuilt.output.contains("command line changed for b"), "\(rebuilt.output)")
        #expect(!rebuilt.output.contains("command line changed for a"), "\(rebuilt.output)")
    }

    @Test func ninjaReadsLinesWeAppendToItsLog() throws {
        let directory = try ReferenceNinjaDirectory()
        try directory.write("build.ninja", "rule touch\n  command = touch $out\nbuild a: touch\n")
        #expect(try directory.ninjaText().status == 0)
        try directory.write("build.ninja", "rule touch\n  command = touch $out\nbuild a: touch\nbuild c: touch\n")
        // Build "c" behind ninja's back and record it as we would.
        try directory.write("c", "")
        let appender = NinjaLogAppender.buildLog(at: directory.file(".ninja_log"))
        try appender.append(NinjaBuildLog.line(for: NinjaBuildLogEntry(
            output: "c", commandHash: MurmurHash64A.hash("touch c"), startTime: 1, endTime: 2, mtime: 0)))
        try appender.close()
        let run = try directory.ninjaText("-d", "explain")
        #expect(run.output.contains("no work to do"), "\(run.output)")
    }

    @Test func ninjaReadsOurRecompactedLog() throws {
        let directory = try ReferenceNinjaDirectory()
        try directory.write("build.ninja", "rule touch\n  command = touch $out\nbuild a: touch\nbuild b: touch\n")
        #expect(try directory.ninjaText().status == 0)
        // Build "a" again several times: its lines pile up.
        for _ in 0..<3 { #expect(try directory.ninjaText("-t", "clean", "a").status == 0); #expect(try directory.ninjaText().status == 0) }
        var log = try NinjaBuildLog.load(from: directory.file(".ninja_log")).log
        #expect(log.loadedLineCount == 5)
        try log.recompact(at: directory.file(".ninja_log"), version: 5) { _ in false }
        let text = String(decoding: try directory.read(".ninja_log"), as: UTF8.self)
        #expect(text.split(separator: "\n").count == 3)
        let run = try directory.ninjaText("-d", "explain")
        #expect(run.output.contains("no work to do"), "\(run.output)")
    }

    @Test func ninjaRecompactionKeepsWhatOursKeeps() throws {
        let directory = try ReferenceNinjaDirectory()
        try directory.write("build.ninja", "rule touch\n  command = touch $out\nbuild a: touch\nbuild gone: touch\n")
        #expect(try directory.ninjaText().status == 0)
        try FileManager.default.removeItem(atPath: directory.file("gone"))
        try directory.write("build.ninja", "rule touch\n  command = touch $out\nbuild a: touch\n")
        var ours = try NinjaBuildLog.load(from: directory.file(".ninja_log")).log
        #expect(try directory.ninjaText("-t", "recompact").status == 0)
        let theirs = try NinjaBuildLog.load(from: directory.file(".ninja_log")).log
        // ninja's rule: dead when no edge writes it and it is not on disk.
        try ours.recompact(at: directory.file("ours"), version: 5) { output in
            output != "a" && !FileManager.default.fileExists(atPath: directory.file(output))
        }
        #expect(ours.entries == theirs.entries)
        #expect(theirs.entries.map(\.output) == ["a"])
    }
}
