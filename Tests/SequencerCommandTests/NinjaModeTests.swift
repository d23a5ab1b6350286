import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// `sequencer ninja`, end to end through the built binary: ninja's output and exit codes, and
/// content hashes deciding what is up to date.
@Suite(.suiteTimeLimit)
struct NinjaModeTests {
    /// Each command appends its output's name to `ran.log`, so a test sees what ran.
    static let counting = """
        rule cat
          command = cat $in > $out && echo $out >> ran.log
          description = CAT $out

        """

    func ran(_ cli: CLI) -> [String] {
        (cli.read("ran.log") ?? "").split(separator: "\n").map(String.init)
    }

    func ninja(_ cli: CLI, _ arguments: [String] = []) async throws -> CLI.Result {
        try await cli.run(["ninja"] + arguments)
    }

    @Test func aBuildPrintsNinjasStatusLinesAndASecondRunHasNoWorkToDo() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.counting + "build mid: cat src\nbuild out: cat mid\n")
        try cli.write("src", "hello\n")
        let first = try await ninja(cli)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.stdout == "[1/2] CAT mid\n[2/2] CAT out\n")
        #expect(cli.read("out") == "hello\n")
        let second = try await ninja(cli)
        #expect(second.status == 0)
        #expect(second.stdout == "ninja: no work to do.\n")
        #expect(ran(cli) == ["mid", "out"])
    }

    @Test func aTouchRunsNothingAndAnEditRunsTheEdgesThatReadIt() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.counting + "build mid: cat src\nbuild out: cat mid\nbuild other: cat other.src\n")
        try cli.write("src", "one\n")
        try cli.write("other.src", "x\n")
        _ = try await ninja(cli)
        // A newer modification time, the same bytes.
        let later = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: cli.path("src"))
        #expect(try await ninja(cli).stdout == "ninja: no work to do.\n")
        try cli.write("src", "two\n")
        let edited = try await ninja(cli)
        #expect(edited.stdout == "[1/2] CAT mid\n[2/2] CAT out\n")
        #expect(ran(cli).suffix(2) == ["mid", "out"])
        #expect(ran(cli).count(where: { $0 == "other" }) == 1, "other.src did not change")
        #expect(cli.read("out") == "two\n")
    }

    @Test func anOutputRewrittenWithTheSameBytesStopsItsDependents() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", """
            rule first
              command = head -c 3 $in > $out && echo $out >> ran.log
            rule cat
              command = cat $in > $out && echo $out >> ran.log
            build head: first src
            build out: cat head

            """)
        try cli.write("src", "abc-1\n")
        _ = try await ninja(cli)
        try cli.write("src", "abc-2\n")
        let result = try await ninja(cli)
        #expect(result.status == 0, "\(result.output)")
        // `head` ran and wrote the same three bytes: `out` is up to date, and the total shrank.
        #expect(ran(cli) == ["head", "out", "head"])
        #expect(result.stdout.hasPrefix("[1/2] head -c 3 src > head"), "\(result.stdout)")
    }

    /// A thin archive names its members instead of holding them: when a member changes with
    /// its size, the archive's bytes stay the same, and what links it must still run.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ar")))
    func aThinArchivesMembersAreItsContent() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", """
            rule cp
              command = cp $in $out
            rule archive
              command = rm -f $out && ar rcsTD $out $in
            rule link
              command = ar p $in > $out
            build m1: cp m1.src
            build lib.a: archive m1
            build out: link lib.a

            """)
        try cli.write("m1.src", "one\n")
        #expect(try await ninja(cli).status == 0)
        #expect(cli.read("out") == "one\n")
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.path("lib.a")))
        try cli.write("m1.src", "two\n")
        let result = try await ninja(cli)
        #expect(result.status == 0, "\(result.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.path("lib.a"))) == before, "the archive's bytes did not change")
        #expect(cli.read("out") == "two\n")
    }

    /// ninja's total shrinks as soon as a restat edge leaves its output alone: the edges
    /// waiting only on it (and on them) leave the plan then, before the next line is printed.
    @Test func theTotalShrinksWhenARestatEdgeLeavesItsOutputAlone() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", """
            rule keep
              command = sed '/^#/d' $in > $out.tmp && if cmp -s $out.tmp $out; then rm $out.tmp; else mv $out.tmp $out; fi
              restat = 1
            rule cat
              command = cat $in > $out
            build a: keep src
            build other: cat x
            build b: cat a
            build c: cat b

            """)
        try cli.write("src", "s\n")
        try cli.write("x", "x\n")
        #expect(try await ninja(cli, ["-j1"]).status == 0)
        try cli.write("src", "# a comment\ns\n")
        try cli.write("x", "y\n")
        let result = try await ninja(cli, ["-j1"])
        #expect(result.stdout == "[1/4] sed '/^#/d' src > a.tmp && if cmp -s a.tmp a; then rm a.tmp; else mv a.tmp a; fi\n[2/2] cat x > other\n", "\(result.output)")
    }

    @Test func aChangedCommandRerunsItsEdge() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.counting + "build out: cat src\n")
        try cli.write("src", "s\n")
        _ = try await ninja(cli)
        try cli.write("build.ninja", Self.counting.replacingOccurrences(of: "cat $in", with: "cat  $in") + "build out: cat src\n")
        let result = try await ninja(cli)
        #expect(result.stdout == "[1/1] CAT out\n")
    }

    @Test func aFailedCommandIsPrintedAsNinjaPrintsItAndRunsAgainNextTime() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", """
            rule fail
              command = echo oops; touch $out; exit 3
            build out: fail

            """)
        let result = try await ninja(cli)
        #expect(result.status == 1)
        #expect(result.stdout == "[1/1] echo oops; touch out; exit 3\nFAILED: out \necho oops; touch out; exit 3\noops\nninja: build stopped: subcommand failed.\n")
        // Its output exists, but the edge failed: it runs again.
        let again = try await ninja(cli)
        #expect(again.status == 1)
        #expect(again.stdout.contains("FAILED: out"))
    }

    @Test func keepGoingRunsEveryEdgeThatCanRun() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", """
            rule fail
              command = exit 1
            rule ok
              command = touch $out
            build a: fail
            build b: fail
            build c: ok
            build d: ok a

            """)
        let result = try await ninja(cli, ["-k", "0"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAILED: a "))
        #expect(result.stdout.contains("FAILED: b "))
        #expect(FileManager.default.fileExists(atPath: cli.path("c")))
        #expect(!FileManager.default.fileExists(atPath: cli.path("d")))
        #expect(result.stdout.hasSuffix("ninja: build stopped: cannot make progress due to previous errors.\n"), "\(result.stdout)")
    }

    @Test func aDyndepFileAddsAnInputBeforeItsEdgeRuns() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", """
            rule touch
              command = touch $out && echo $out >> ran.log
            rule cp
              command = cp $in $out && echo $out >> ran.log
            rule dd
              command = printf 'ninja_dyndep_version = 1\\nbuild out: dyndep | made\\n' > $out
            build dd: dd
            build made: touch
            build out: cp in || dd
              dyndep = dd

            """)
        try cli.write("in", "1\n")
        let result = try await ninja(cli)
        #expect(result.status == 0, "\(result.output)")
        #expect(ran(cli) == ["made", "out"])
        #expect(result.stdout.contains("[3/3]"), "\(result.stdout)")
    }

    @Test func aManifestThatAnEdgeWritesIsBuiltFirstAndReadAgain() async throws {
        let cli = try CLI()
        let manifest = """
            rule regen
              command = cp $in $out
              generator = 1
            build build.ninja: regen template.ninja

            """
        try cli.write("build.ninja", manifest)
        try cli.write("template.ninja", manifest + "rule make\n  command = echo made > $out\nbuild out: make\n")
        let result = try await ninja(cli)
        #expect(result.status == 0, "\(result.output)")
        #expect(cli.read("out") == "made\n")
        #expect(try await ninja(cli).stdout == "ninja: no work to do.\n")
    }

    @Test func errorsAreNinjas() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", "rule cat\n  command = cat $in > $out\nbuild a: cat b\nbuild b: cat a\nbuild c: cat missing\n")
        let cycle = try await ninja(cli, ["a"])
        #expect(cycle.status == 1)
        #expect(cycle.stderr == "ninja: error: dependency cycle: a -> b -> a\n")
        let missing = try await ninja(cli, ["c"])
        #expect(missing.stderr == "ninja: error: 'missing', needed by 'c', missing and no known rule to make it\n")
        let unknown = try await ninja(cli, ["cc"])
        #expect(unknown.stderr == "ninja: error: unknown target 'cc', did you mean 'c'?\n")
        try cli.write("bad.ninja", "rule cat\n  command = cat $in > $out\nbuild x: nope y\n")
        let parse = try await ninja(cli, ["-f", "bad.ninja"])
        #expect(parse.status == 1)
        #expect(parse.stderr.hasPrefix("ninja: error: bad.ninja:3: unknown build rule 'nope'\n"), "\(parse.stderr)")
    }

    @Test func theBinaryLinkedAsNinjaIsNinja() async throws {
        let cli = try CLI()
        let link = cli.path("ninja")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: CLI.binary.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: link)
        process.arguments = ["--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(String(decoding: data, as: UTF8.self) == "1.11.1\n")
        #expect(process.terminationStatus == 0)
    }

    @Test func aDamagedStateFileIsACacheThatStartsAnew() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.counting + "build out: cat src\n")
        try cli.write("src", "s\n")
        _ = try await ninja(cli)
        let state = cli.path(".sequencer/ninja-state")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: state))
        bytes[bytes.count - 3] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: state))
        let result = try await ninja(cli)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stderr.contains("ninja-state: damaged; it is a cache: starting it anew"), "\(result.stderr)")
        #expect(cli.read("out") == "s\n")
    }

    /// A directory ninja built is up to date for Sequencer, and the other way round.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ninja")))
    func switchingBetweenNinjaAndSequencerRebuildsNothing() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.counting + "build mid: cat src\nbuild out: cat mid\n")
        try cli.write("src", "s\n")
        let ninjaRun = try await runNinja(in: cli)
        #expect(ninjaRun.contains("[2/2]"))
        #expect(try await ninja(cli).stdout == "ninja: no work to do.\n")
        try cli.write("src", "changed\n")
        #expect(try await ninja(cli).stdout == "[1/2] CAT mid\n[2/2] CAT out\n")
        #expect(try await runNinja(in: cli) == "ninja: no work to do.\n")
    }

    private func runNinja(in cli: CLI) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ninja")
        process.currentDirectoryURL = cli.directory
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
