import Foundation
import Testing

@testable import SequencerNinja

/// The ninja the tools are compared with.
private let referenceNinja = "/usr/bin/ninja"

/// The real ninja (1.11.1, at /usr/bin/ninja) against our tools: each scenario builds a tree
/// with ninja in one directory, copies it (mtimes kept) to a second one, then runs each tool
/// command line with ninja in the first and with ours in the second, and compares the exit
/// codes, standard output and standard error (addresses in `graph`'s output and the
/// directories' paths made alike), and then what is in the two directories. Skipped when
/// ninja is not installed.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: referenceNinja)))
struct ToolNinjaDifferentialTests {
    /// One thing a scenario does.
    enum Step: Sendable, CustomStringConvertible {
        /// Writes files into the first directory.
        case write([String: String])
        /// Runs ninja (a build, usually) in the first directory.
        case ninja([String])
        /// Runs the tool with both and compares.
        case compare([String])

        var description: String {
            switch self {
            case .write(let files): "write \(files.keys.sorted())"
            case .ninja(let arguments): "ninja \(arguments.joined(separator: " "))"
            case .compare(let arguments): "compare \(arguments.joined(separator: " "))"
            }
        }
    }

    struct Scenario: Sendable, CustomStringConvertible {
        var name: String
        var steps: [Step]
        var description: String { name }
    }

    static let compiling = """
        rule cc
          command = printf '%s: %s\\n' $out "$in" > $out.d && cat $in > $out
          depfile = $out.d
          deps = gcc
          description = CC $out
        rule cc_keep
          command = printf '%s: %s\\n' $out "$in" > $out.d && cat $in > $out
          depfile = $out.d
        rule link
          command = cat @$out.rsp > $out
          rspfile = $out.rsp
          rspfile_content = $in
        rule gen
          command = printf 'generated\\n' > $out
          generator = 1
        build gen.h: gen
        build a.o: cc a.c | gen.h
        build b.o: cc b.c || gen.h
        build c.o: cc_keep c.c
        build app: link a.o b.o c.o
        build all: phony app
        build check: phony |@ app
        default app

        """

    static let scenarios: [Scenario] = [
        Scenario(
            name: "read-only tools on a built tree",
            steps: [
                .write(["build.ninja": compiling, "a.c": "a\n", "b.c": "b\n", "c.c": "c\n"]),
                .ninja(["-d", "keeprsp", "-d", "keepdepfile"]),
                .compare(["-t", "targets"]), .compare(["-t", "targets", "depth", "0"]), .compare(["-t", "targets", "depth", "2"]),
                .compare(["-t", "targets", "all"]), .compare(["-t", "targets", "rule"]), .compare(["-t", "targets", "rule", "cc"]),
                .compare(["-t", "targets", "bogus"]), .compare(["-t", "targets", "dept"]),
                .compare(["-t", "rules"]), .compare(["-t", "rules", "-d"]), .compare(["-t", "rules", "-h"]),
                .compare(["-t", "rules", "-q"]),
                .compare(["-t", "query", "app", "a.o", "gen.h", "check"]), .compare(["-t", "query"]), .compare(["-t", "query", "ap"]),
                .compare(["-t", "query", "a.c^"]), .compare(["-t", "query", "check^"]), .compare(["-t", "query", "b.c", "nope"]),
                .compare(["-t", "commands"]), .compare(["-t", "commands", "-s", "app", "b.o"]), .compare(["-t", "commands", "a.o", "-s"]),
                .compare(["-t", "commands", "--help"]), .compare(["-t", "commands", "-h"]), .compare(["-t", "commands", "clean"]),
                .compare(["-t", "inputs"]), .compare(["-t", "inputs", "a.o", "c.o"]), .compare(["-t", "inputs", "--help"]),
                .compare(["-t", "inputs", "--hel"]), .compare(["-t", "inputs", "--x"]), .compare(["-t", "inputs", "help"]),
                .compare(["-t", "compdb"]), .compare(["-t", "compdb", "-x"]), .compare(["-t", "compdb", "cc", "link", "cc"]),
                .compare(["-t", "compdb", "-x", "link"]), .compare(["-t", "compdb", "-z"]),
                .compare(["-t", "graph"]), .compare(["-t", "graph", "a.o", "all"]), .compare(["-t", "graph", "nope"]),
                .compare(["-t", "deps"]), .compare(["-t", "deps", "a.o", "c.o", "app"]), .compare(["-t", "deps", "a.c^"]),
                .compare(["-t", "missingdeps"]), .compare(["-t", "missingdeps", "a.o"]),
                .compare(["-n", "-t", "clean"]), .compare(["-n", "-t", "clean", "-g"]), .compare(["-n", "-t", "clean", "app"]),
                .compare(["-n", "-t", "clean", "-r", "cc", "link"]), .compare(["-t", "clean", "-r"]),
                .compare(["-n", "-t", "cleandead"]),
            ]),
        Scenario(
            name: "clean removes outputs, depfiles and response files",
            steps: [
                .write(["build.ninja": compiling, "a.c": "a\n", "b.c": "b\n", "c.c": "c\n"]),
                .ninja(["-d", "keeprsp", "-d", "keepdepfile"]),
                .compare(["-t", "clean", "a.o"]), .compare(["-v", "-t", "clean", "b.o", "nope", "b.o"]),
                .compare(["-t", "clean", "-h"]), .compare(["-t", "clean", "-x"]),
                .compare(["-t", "clean"]), .ninja([]), .compare(["-v", "-t", "clean", "-g"]), .ninja([]),
                .compare(["-t", "clean", "-r", "link", "bogus", "gen"]), .compare(["--quiet", "-t", "clean", "all"]),
            ]),
        Scenario(
            name: "deps, missing deps and a build directory",
            steps: [
                .write([
                    "build.ninja": """
                    builddir = out
                    rule cc
                      command = printf '%s: %s gen/h.h\\n' $out $in > $out.d && cat $in > $out
                      depfile = $out.d
                      deps = gcc
                    rule gen
                      command = mkdir -p gen && printf 'h\\n' > $out
                    rule cat
                      command = cat $in > $out
                    build gen/h.h: gen
                    build x.o: cc x.c
                    build y.o: cc y.c || gen/h.h
                    build lib: cat x.o y.o

                    """,
                    "x.c": "x\n", "y.c": "y\n",
                ]),
                .ninja([]),
                .compare(["-t", "deps"]), .compare(["-t", "deps", "x.o", "lib", "gen/h.h"]), .compare(["-t", "deps", "gen/h.h^"]),
                .compare(["-t", "missingdeps"]), .compare(["-t", "missingdeps", "y.o"]), .compare(["-t", "query", "gen/h.h", "gen/h.h^"]),
                .compare(["-t", "recompact"]), .compare(["-t", "deps"]),
                .write(["x.c": "x2\n"]),
                .compare(["-t", "deps", "x.o"]),
            ]),
        Scenario(
            name: "cleandead and recompact after outputs leave the manifest",
            steps: [
                .write([
                    "build.ninja":
                        "rule touch\n  command = touch $out\n  deps = gcc\nbuild one: touch\nbuild two: touch\nbuild three: touch\n"
                ]),
                .ninja([]),
                .write(["build.ninja": "rule touch\n  command = touch $out\nbuild one: touch\n"]),
                .compare(["-n", "-t", "cleandead"]), .compare(["-t", "recompact"]), .compare(["-t", "cleandead"]),
                .compare(["-t", "recompact"]), .compare(["-t", "cleandead"]),
            ]),
        Scenario(
            name: "restat",
            steps: [
                .write(["build.ninja": "rule touch\n  command = touch $out\nbuild one: touch\nbuild two: touch\nbuild three: touch\n"]),
                .ninja([]),
                .compare(["-t", "restat", "-h"]), .compare(["-t", "restat", "-z"]),
                .write(["two": "changed\n"]),
                .compare(["-t", "restat", "two", "nothing"]),
                .write(["build.ninja": "rule touch\n  command = touch $out\nbuild one: touch\n"]),
                .compare(["-t", "restat"]),
            ]),
        Scenario(
            name: "no log and no manifest",
            steps: [
                .compare(["-t", "restat"]),
                .write(["build.ninja": "build a: phony\n"]),
                .compare(["-t", "deps"]), .compare(["-t", "cleandead"]), .compare(["-t", "recompact"]), .compare(["-t", "missingdeps"]),
            ]),
        Scenario(
            name: "outputs known only to the deps log",
            steps: [
                .write([
                    "build.ninja": """
                    rule cc
                      command = printf '%s: %s\\n' $out $in > $out.d && cat $in > $out
                      depfile = $out.d
                      deps = gcc
                    build kept.o: cc kept.c
                    build gone.o: cc gone.c

                    """,
                    "kept.c": "k\n", "gone.c": "g\n",
                ]),
                .ninja([]),
                .write(["build.ninja": "rule cc\n  command = cat $in > $out\n  deps = gcc\nbuild kept.o: cc kept.c\n"]),
                .compare(["-t", "deps"]), .compare(["-t", "deps", "gone.o", "gone.c"]), .compare(["-t", "query", "gone.o", "gone.c^"]),
                .compare(["-t", "missingdeps"]), .compare(["-t", "query", "gon.o"]),
                .write(["kept.o": "newer\n"]),
                .compare(["-t", "deps", "kept.o"]),
                .compare(["-t", "cleandead"]), .compare(["-t", "recompact"]), .compare(["-t", "deps", "gone.o"]),
            ]),
        Scenario(
            name: "damaged logs",
            steps: [
                .write([
                    "build.ninja": "rule touch\n  command = touch $out\nbuild a: touch\n", ".ninja_deps": "# ninjadeps\nbad",
                    ".ninja_log": "# ninja log v3\n",
                ]),
                .compare(["-t", "deps"]),
                .write([".ninja_deps": "# ninjadeps\nbad", ".ninja_log": "# ninja log v3\n"]),
                .compare(["-t", "recompact"]),
                .write([".ninja_log": "# ninja log v3\n"]),
                .compare(["-t", "restat"]),
                .write([".ninja_log": "# ninja log v4\n1\t2\t3\ta\tcommand\n1\t2\t3\tb\tother\n"]),
                .compare(["-n", "-t", "restat"]),
                .write([".ninja_log": "# ninja log v4\n1\t2\t3\ta\tcommand\n1\t2\t3\tb\tother\n"]),
                .compare(["-t", "restat"]),
            ]),
        Scenario(
            name: "errors and odd manifests",
            steps: [
                .write([
                    "build.ninja": """
                    rule r
                      command = touch $out
                    build loop1: phony loop2
                    build loop2: phony loop1
                    subninja sub.ninja

                    """,
                    "sub.ninja": "rule r\n  command = sub $out\n  description = SUB $in\nbuild sub.out: r sub.in\n",
                    "dir/file": "",
                ]),
                .compare(["-t", "targets"]), .compare(["-t", "targets", "depth", "1"]), .compare(["-t", "rules", "-d"]),
                .compare(["-t", "commands"]), .compare(["-t", "commands", "sub.out"]), .compare(["-t", "compdb"]),
                .compare(["-t", "clean", ""]), .compare(["-t", "clean", "nope", "sub.out"]), .compare(["-t", "clean", "-r", "r"]),
                .write(["build.ninja": "rule r\n  command = touch $out\nbuild dir: r\n", "dir/file": ""]),
                .compare(["-t", "clean"]), .compare(["-n", "-t", "clean"]),
                .write(["build.ninja": "build a: phony\nbuild b: phony a\n"]),
                .compare(["-t", "targets", "depth", "0"]), .compare(["-t", "inputs"]), .compare(["-t", "compdb"]),
                .compare(["-t", "graph"]),
            ]),
        Scenario(
            name: "a long build log is recompacted when a tool opens it",
            steps: [
                .write([
                    "build.ninja": "rule touch\n  command = touch $out\nbuild a: touch\nbuild b: touch\n",
                    ".ninja_log": "# ninja log v5\n" + String(repeating: "1\t2\t3\ta\tbeef\n", count: 150) + "1\t2\t3\tgone\tbeef\n",
                ]),
                .compare(["-n", "-t", "deps"]), .compare(["-t", "deps"]),
            ]),
        Scenario(
            name: "orders of ninja's hash tables",
            steps: [
                .write(manyOutputs()),
                .compare(["-n", "-t", "cleandead"]), .compare(["-t", "query", "x"]), .compare(["-t", "query", "x100"]),
                .compare(["-t", "query", "dea"]), .compare(["-t", "commands", "x4x"]),
                .compare(["-t", "restat", "dead7", "gone3", "kept"]), .compare(["-t", "recompact"]), .compare(["-t", "cleandead"]),
            ]),
        Scenario(
            name: "dyndep files",
            steps: [
                .write([
                    "build.ninja": """
                    rule touch
                      command = touch $out
                    rule dd
                      command = printf 'ninja_dyndep_version = 1\\nbuild out | out.imp: dyndep | in.imp\\n' > $out
                    build out: touch in || out.dd
                      dyndep = out.dd
                    build out.dd: dd
                    build in.imp: touch

                    """,
                    "in": "",
                ]),
                .compare(["-t", "query", "out"]), .compare(["-t", "graph", "out"]), .compare(["-n", "-t", "clean"]),
                .ninja([]),
                .compare(["-t", "query", "out"]), .compare(["-t", "graph"]), .compare(["-t", "inputs", "out"]),
                .compare(["-v", "-t", "clean", "out"]),
            ]),
    ]

    /// A manifest of 41 outputs, 300 files on disk, and a log of 601 outputs, 300 of them on
    /// disk: enough for ninja's tables to grow several times.
    static func manyOutputs() -> [String: String] {
        var manifest = "rule touch\n  command = touch $out\nbuild kept: touch\n"
        for index in 0..<40 { manifest += "build x\(index): touch\n" }
        var log = "# ninja log v5\n"
        for index in 0..<300 { log += "1\t2\t3\tdead\(index)\tbeef\n" }
        log += "1\t2\t3\tkept\tbeef\n"
        for index in 0..<300 { log += "1\t2\t3\tgone\(index)\tbeef\n" }
        var files = ["build.ninja": manifest, ".ninja_log": log]
        for index in 0..<300 { files["dead\(index)"] = "" }
        return files
    }

    @Test(arguments: scenarios)
    func toolsMatchNinja(_ scenario: Scenario) throws {
        let theirs = try ToolTesting.makeDirectory()
        let ours = try ToolTesting.makeDirectory()
        defer {
            ToolTesting.removeDirectory(theirs)
            ToolTesting.removeDirectory(ours)
        }
        var copied = true
        for step in scenario.steps {
            switch step {
            case .write(let files):
                try ToolTesting.write(files, in: theirs)
                copied = false
            case .ninja(let arguments):
                _ = try Self.runNinja(arguments, in: theirs)
                copied = false
            case .compare(let arguments):
                if !copied {
                    try Self.copy(theirs, to: ours)
                    copied = true
                }
                let expected = Self.normalized(try Self.runNinja(arguments, in: theirs), directory: theirs)
                let actual = Self.normalized(try ToolTesting.run(arguments, in: ours), directory: ours)
                #expect(actual == expected, "\(scenario.name): ninja \(arguments.joined(separator: " "))")
                #expect(ToolTesting.listing(of: ours) == ToolTesting.listing(of: theirs), "files after \(arguments)")
                try Self.expectSameLogs(theirs, ours, after: arguments)
            }
        }
    }

    /// The logs of the two directories (and what is left of their rewriting) are the same, byte
    /// for byte.
    static func expectSameLogs(_ theirs: String, _ ours: String, after arguments: [String]) throws {
        for directory in ["", "out/"] {
            for log in [".ninja_deps", ".ninja_log", ".ninja_log.recompact", ".ninja_log.restat", ".ninja_deps.recompact"] {
                let path = directory + log
                guard ToolTesting.exists(path, in: theirs) && ToolTesting.exists(path, in: ours) else { continue }
                #expect(try ToolTesting.read(path, in: ours) == ToolTesting.read(path, in: theirs), "\(path) after \(arguments)")
            }
        }
    }

    /// The directory's path as `<dir>`, and each address (`0x…`) numbered in order of first
    /// appearance.
    static func normalized(_ result: ToolRunResult, directory: String) -> ToolRunResult {
        var addresses: [String: String] = [:]
        func normalize(_ text: String) -> String {
            var output = ""
            var rest = Substring(text.replacingOccurrences(of: directory, with: "<dir>"))
            while let range = rest.range(of: "\"0x") {
                output += rest[..<range.lowerBound]
                var end = range.upperBound
                while end < rest.endIndex, rest[end].isHexDigit { end = rest.index(after: end) }
                let address = String(rest[range.lowerBound..<end])
                let name = addresses[address] ?? "\"address\(addresses.count)"
                addresses[address] = name
                output += name
                rest = rest[end...]
            }
            return output + rest
        }
        return ToolRunResult(
            exitCode: result.exitCode, standardOutput: normalize(result.standardOutput), standardError: normalize(result.standardError))
    }

    /// Runs the real ninja in `directory`.
    static func runNinja(_ arguments: [String], in directory: String) throws -> ToolRunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: referenceNinja)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C"]
        let captures = try ToolTesting.makeDirectory()
        defer { ToolTesting.removeDirectory(captures) }
        _ = FileManager.default.createFile(atPath: captures + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: captures + "/err", contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: captures + "/out"))
        let error = try FileHandle(forWritingTo: URL(fileURLWithPath: captures + "/err"))
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try output.close()
        try error.close()
        return ToolRunResult(
            exitCode: process.terminationStatus, standardOutput: try ToolTesting.read("out", in: captures),
            standardError: try ToolTesting.read("err", in: captures))
    }

    /// Makes `destination` a copy of `source`, modification times included.
    static func copy(_ source: String, to destination: String) throws {
        ToolTesting.removeDirectory(destination)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/cp")
        process.arguments = ["-a", source, destination]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ToolTestFailure(description: "cp -a \(source) \(destination) failed") }
    }
}
