import Foundation
import Testing

@testable import SequencerNinja

/// `clean` and `cleandead` in temporary directories.
struct ToolCleanTests {
    static let manifest = """
        rule cc
          command = cc $in > $out
          depfile = $out.d
        rule link
          command = ld @$out.rsp > $out
          rspfile = $out.rsp
          rspfile_content = $in
        rule configure
          command = configure
          generator = 1
        build build.ninja: configure
        build a.o: cc a.c
        build b.o: cc b.c
        build app: link a.o b.o
        build all: phony app

        """

    static let built = ["a.o", "a.o.d", "b.o", "b.o.d", "app", "app.rsp", "all"]

    private func makeTree() throws -> String {
        let directory = try ToolTesting.makeDirectory()
        var files = ["build.ninja": Self.manifest, "a.c": "", "b.c": ""]
        for file in Self.built { files[file] = "" }
        try ToolTesting.write(files, in: directory)
        return directory
    }

    @Test func cleanRemovesOutputsDepfilesAndResponseFilesButNotGeneratorsOrPhonyOutputs() throws {
        let directory = try makeTree()
        defer { ToolTesting.removeDirectory(directory) }
        let result = try ToolTesting.run(["-t", "clean"], in: directory)
        #expect(result == ToolRunResult(exitCode: 0, standardOutput: "Cleaning... 6 files.\n", standardError: ""))
        #expect(ToolTesting.listing(of: directory) == ["a.c", "all", "b.c", "build.ninja"])
        #expect(try ToolTesting.run(["-t", "clean"], in: directory).standardOutput == "Cleaning... 0 files.\n")
    }

    @Test func cleanDryRunCountsAndNamesWithoutRemoving() throws {
        let directory = try makeTree()
        defer { ToolTesting.removeDirectory(directory) }
        let result = try ToolTesting.run(["-n", "-t", "clean", "-g"], in: directory)
        let expected =
            "Cleaning...\nRemove build.ninja\nRemove a.o\nRemove a.o.d\nRemove b.o\nRemove b.o.d\nRemove app\nRemove app.rsp\n7 files.\n"
        #expect(result == ToolRunResult(exitCode: 0, standardOutput: expected, standardError: ""))
        #expect(ToolTesting.listing(of: directory).count == 10)
    }

    @Test func cleanTargetsRemovesWhatBuildsThem() throws {
        let directory = try makeTree()
        defer { ToolTesting.removeDirectory(directory) }
        let result = try ToolTesting.run(["-v", "-t", "clean", "a.o", "nope", "./all"], in: directory)
        let expected =
            "Cleaning...\nTarget a.o\nRemove a.o\nRemove a.o.d\nTarget all\nRemove app\nRemove app.rsp\nRemove b.o\nRemove b.o.d\n6 files.\n"
        #expect(result == ToolRunResult(exitCode: 1, standardOutput: expected, standardError: "ninja: error: unknown target 'nope'\n"))
        #expect(ToolTesting.listing(of: directory) == ["a.c", "all", "b.c", "build.ninja"])
    }

    @Test func cleanRulesRemovesTheRulesOutputs() throws {
        let directory = try makeTree()
        defer { ToolTesting.removeDirectory(directory) }
        let result = try ToolTesting.run(["-t", "clean", "-r", "link", "phony", "nothing"], in: directory)
        #expect(
            result
                == ToolRunResult(
                    exitCode: 1, standardOutput: "Cleaning... 3 files.\n", standardError: "ninja: error: unknown rule 'nothing'\n"))
        #expect(!ToolTesting.exists("app.rsp", in: directory) && !ToolTesting.exists("all", in: directory))
        #expect(ToolTesting.exists("a.o", in: directory))
    }

    @Test func cleanUsageAndArgumentErrors() throws {
        let directory = try makeTree()
        defer { ToolTesting.removeDirectory(directory) }
        let usage = """
            usage: ninja -t clean [options] [targets]

            options:
              -g     also clean files marked as ninja generator output
              -r     interpret targets as a list of rules to clean instead

            """
        #expect(
            try ToolTesting.run(["-t", "clean", "-h"], in: directory)
                == ToolRunResult(exitCode: 1, standardOutput: usage, standardError: ""))
        #expect(
            try ToolTesting.run(["-t", "clean", "-r"], in: directory)
                == ToolRunResult(exitCode: 1, standardOutput: "", standardError: "ninja: error: expected a rule to clean\n"))
        #expect(
            try ToolTesting.run(["-t", "clean", ""], in: directory)
                == ToolRunResult(
                    exitCode: 1, standardOutput: "Cleaning... 0 files.\n",
                    standardError: "ninja: error: failed to canonicalize '': empty path\n"))
        #expect(ToolTesting.listing(of: directory).count == 10)
    }

    @Test func cleanReportsWhatCannotBeRemoved() throws {
        let directory = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(directory) }
        try ToolTesting.write(["build.ninja": "rule r\n  command = r\nbuild full: r\nbuild empty: r\n", "full/file": ""], in: directory)
        try FileManager.default.createDirectory(atPath: directory + "/empty", withIntermediateDirectories: false)
        let result = try ToolTesting.run(["-t", "clean"], in: directory)
        #expect(
            result
                == ToolRunResult(
                    exitCode: 1, standardOutput: "Cleaning... 1 files.\n",
                    standardError: "ninja: error: remove(full): Directory not empty\n"))
        #expect(!ToolTesting.exists("empty", in: directory))
    }

    @Test func cleanLoadsDyndepFilesFirst() throws {
        let directory = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(directory) }
        try ToolTesting.write(
            [
                "build.ninja": "rule r\n  command = r\nbuild out: r || out.dd\n  dyndep = out.dd\n",
                "out.dd": "ninja_dyndep_version = 1\nbuild out | extra: dyndep\n", "out": "", "extra": "",
            ], in: directory)
        #expect(try ToolTesting.run(["-t", "clean"], in: directory).standardOutput == "Cleaning... 2 files.\n")
        #expect(ToolTesting.listing(of: directory) == ["build.ninja", "out.dd"])
    }

    @Test func cleanDeadRemovesLoggedOutputsTheManifestDropped() throws {
        let directory = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(directory) }
        let log = "# ninja log v5\n1\t2\t0\tkept\t1\n1\t2\t0\tgone\t2\n1\t2\t0\tinput\t3\n1\t2\t0\tmissing\t4\n"
        try ToolTesting.write(
            ["build.ninja": "rule r\n  command = r\nbuild kept: r input\n", ".ninja_log": log, "kept": "", "gone": "", "input": ""],
            in: directory)
        let dryRun = try ToolTesting.run(["-n", "-t", "cleandead"], in: directory)
        #expect(dryRun == ToolRunResult(exitCode: 0, standardOutput: "Cleaning...\nRemove gone\n1 files.\n", standardError: ""))
        let result = try ToolTesting.run(["-t", "cleandead"], in: directory)
        #expect(result == ToolRunResult(exitCode: 0, standardOutput: "Cleaning... 1 files.\n", standardError: ""))
        #expect(ToolTesting.listing(of: directory) == [".ninja_log", "build.ninja", "input", "kept"])
    }

    @Test func cleanDepfilesAndResponseFilesWithSpaces() throws {
        let directory = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(directory) }
        let manifest = """
            rule cc_dep
              command = cc $in > $out
              depfile = $out.d
            rule cc_rsp
              command = cc $in > $out
              rspfile = $out.rsp
              rspfile_content = $in
            build out$ 1: cc_dep in$ 1
            build out$ 2: cc_rsp in$ 1

            """
        try ToolTesting.write(["build.ninja": manifest, "out 1": "", "out 2": "", "out 1.d": "", "out 2.rsp": ""], in: directory)
        #expect(try ToolTesting.run(["-t", "clean"], in: directory).standardOutput == "Cleaning... 4 files.\n")
        #expect(ToolTesting.listing(of: directory) == ["build.ninja"])
    }
}
