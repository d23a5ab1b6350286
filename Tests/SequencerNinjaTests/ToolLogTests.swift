import Foundation
import Testing

@testable import SequencerNinja

/// `recompact` and `restat`, which rewrite the logs.
struct ToolLogTests {
    @Test func recompactDropsDeadOutputsAndOldDeps() throws {
        let directory = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(directory) }
        let manifest =
            "builddir = logs\nrule cc\n  command = cc\n  deps = gcc\nrule plain\n  command = p\nbuild a.o: cc\nbuild p.o: plain\n"
        let log = "# ninja log v5\n1\t2\t3\ta.o\tbeef\n4\t5\t6\ta.o\tf00d\n1\t2\t3\tgone\t1\n1\t2\t3\ton-disk\t1\n"
        try ToolTesting.write(["build.ninja": manifest, "logs/.ninja_log": log, "on-disk": ""], in: directory)
        try ToolTesting.writeDepsLog(
            [
                (output: "a.o", mtime: 1, inputs: ["x.h"]), (output: "a.o", mtime: 2, inputs: ["y.h"]),
                (output: "p.o", mtime: 3, inputs: ["z.h"]),
            ], at: directory + "/logs/.ninja_deps")
        let result = try ToolTesting.run(["-t", "recompact"], in: directory)
        #expect(result == ToolRunResult(exitCode: 0, standardOutput: "", standardError: ""))
        #expect(try ToolTesting.read("logs/.ninja_log", in: directory) == "# ninja log v5\n1\t2\t3\ton-disk\t1\n4\t5\t6\ta.o\tf00d\n")
        let deps = try NinjaDepsLog.load(from: directory + "/logs/.ninja_deps").log
        #expect(deps.outputs == ["a.o"])
        #expect(deps.deps(of: "a.o") == NinjaDepsLog.PathDeps(mtime: 2, inputs: ["y.h"]))
        #expect(deps.paths == ["a.o", "y.h"])
    }

    @Test func recompactWithoutLogsCreatesOnlyTheBuildDirectory() throws {
        let directory = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(directory) }
        try ToolTesting.write(["build.ninja": "builddir = a/b\nbuild x: phony\n"], in: directory)
        #expect(try ToolTesting.run(["-t", "recompact"], in: directory).exitCode == 0)
        #expect(ToolTesting.listing(of: directory) == ["a", "a/b", "build.ninja"])
    }

    @Test func recompactOfALogTooOldFailsAsNinjaDoes() throws {
        let directory = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(directory) }
        try ToolTesting.write(["build.ninja": "build x: phony\n", ".ninja_log": "# ninja log v3\n"], in: directory)
        let result = try ToolTesting.run(["-t", "recompact"], in: directory)
        let warning = "ninja: warning: build log version invalid, perhaps due to being too old; starting over\n"
        #expect(
            result
                == ToolRunResult(
                    exitCode: 1, standardOutput: "",
                    standardError: warning + "ninja: error: failed recompaction: No such file or directory\n"))
        #expect(try ToolTesting.read(".ninja_log.recompact", in: directory) == "# ninja log v5\n")
    }

    /// ninja writes the log in the order of its table of entries (`NinjaHashTableOrder`), which
    /// depends on the order it read them in.
    @Test func restatRecordsCurrentMtimesAndZeroForMissingFiles() throws {
        let directory = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(directory) }
        let log = "# ninja log v5\n1\t2\t3\tthere\tbeef\n4\t5\t6\tmissing\tf00d\n7\t8\t9\tother\tabc\n"
        try ToolTesting.write(["build.ninja": "builddir = ignored\n", ".ninja_log": log, "there": "", "other": ""], in: directory)
        try ToolTesting.setModificationTime(directory + "/there", seconds: 1234)
        try ToolTesting.setModificationTime(directory + "/other", seconds: 99)
        let named = try ToolTesting.run(["-t", "restat", "there", "missing"], in: directory)
        #expect(named == ToolRunResult(exitCode: 0, standardOutput: "", standardError: ""))
        #expect(
            try ToolTesting.read(".ninja_log", in: directory)
                == "# ninja log v5\n7\t8\t9\tother\tabc\n4\t5\t0\tmissing\tf00d\n1\t2\t1234000000000\tthere\tbeef\n")
        _ = try ToolTesting.run(["-t", "restat"], in: directory)
        #expect(
            try ToolTesting.read(".ninja_log", in: directory)
                == "# ninja log v5\n1\t2\t1234000000000\tthere\tbeef\n4\t5\t0\tmissing\tf00d\n7\t8\t99000000000\tother\tabc\n")
        #expect(!ToolTesting.exists("ignored", in: directory))
    }

    @Test func restatWithoutALogDoesNothing() throws {
        let directory = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(directory) }
        #expect(try ToolTesting.run(["-t", "restat"], in: directory) == ToolRunResult(exitCode: 0, standardOutput: "", standardError: ""))
        #expect(ToolTesting.listing(of: directory).isEmpty)
        #expect(try ToolTesting.run(["-t", "restat", "-h"], in: directory).standardOutput == "usage: ninja -t restat [outputs]\n")
    }

    @Test func restatOfAnOldLogRecompactsItUnlessDryRun() throws {
        let directory = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(directory) }
        let log = "# ninja log v4\n1\t2\t3\tthere\tcommand\n1\t2\t3\tmissing\tcommand\n"
        try ToolTesting.write([".ninja_log": log, "there": ""], in: directory)
        try ToolTesting.setModificationTime(directory + "/there", seconds: 5)
        let hash = String(MurmurHash64A.hash("command"), radix: 16)
        _ = try ToolTesting.run(["-n", "-t", "restat"], in: directory)
        #expect(
            try ToolTesting.read(".ninja_log", in: directory)
                == "# ninja log v5\n1\t2\t0\tmissing\t\(hash)\n1\t2\t5000000000\tthere\t\(hash)\n")
        try ToolTesting.write([".ninja_log": log], in: directory)
        _ = try ToolTesting.run(["-t", "restat"], in: directory)
        #expect(try ToolTesting.read(".ninja_log", in: directory) == "# ninja log v5\n1\t2\t5000000000\tthere\t\(hash)\n")
    }
}
