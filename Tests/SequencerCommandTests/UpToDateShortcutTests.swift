import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A no-op run after a no-op run is decided from the journal's up-to-date state (the stamps
/// of every file the last decision read), as ninja decides one: and any change that could
/// change a fingerprint or an output sends the run the usual way, which decides as before.
@Suite(.suiteTimeLimit)
struct UpToDateShortcutTests {
    /// `gen` reads src.txt; `use` needs it (`NoOpRunTests`' file).
    static let yaml = NoOpRunTests.yaml

    static let shortcut = "as the journal's up-to-date state says"

    /// A run with the debug log, and whether it took the shortcut.
    func run(_ cli: CLI, _ arguments: [String] = ["run"]) async throws -> (result: CLI.Result, shortcut: Bool) {
        let result = try await cli.run(arguments, environment: ["SEQUENCER_LOG": "debug"])
        #expect(result.status == 0, "\(result.output)")
        return (result, result.stderr.contains(Self.shortcut))
    }

    /// A directory with the two jobs run once, then found up to date once (which keeps the state).
    func madeUpToDate(_ yaml: String = Self.yaml, with files: [String: String] = [:]) async throws -> CLI {
        let cli = try CLI()
        for (name, text) in files { try cli.write(name, text) }
        try cli.write("src.txt", "one\n")
        try cli.write("sequencer.yml", yaml)
        try FileManager.default.createDirectory(atPath: cli.path("out"), withIntermediateDirectories: true)
        #expect(try await run(cli).shortcut == false)
        #expect(try await run(cli).shortcut == false, "the first no-op run decides the usual way")
        return cli
    }

    @Test func aNoOpRunAfterANoOpRunTakesTheShortcutAndRecordsTheSame() async throws {
        let cli = try await madeUpToDate()
        defer { cli.remove() }
        let (noOp, shortcut) = try await run(cli, ["run", "--verbose"])
        #expect(shortcut, "\(noOp.output)")
        let lines = noOp.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "sequencer: run #3 of sequencer.yml", "\(noOp.output)")
        #expect(lines.dropFirst().prefix(2) == ["[1/2] up to date gen", "[2/2] up to date use"], "\(noOp.output)")
        #expect(lines.last?.hasSuffix(": 2 up to date") == true, "\(noOp.output)")
        #expect(cli.lines("gen.count") == 1 && cli.lines("use.count") == 1)
        let runs = try await cli.run(["runs", "--json"]).jsonArray()
        #expect(runs.map { $0["id"] as? Int } == [3, 2, 1])
        #expect(runs.map { $0["upToDate"] as? Int } == [2, 2, 0])
        #expect(runs.map { $0["skipped"] as? Int } == [0, 0, 0])
        let shown = try await cli.run(["show", "3", "--json"]).jsonObject()
        let jobs = try #require(shown["jobs"] as? [[String: Any]])
        #expect(jobs.map { $0["name"] as? String } == ["gen", "use"])
        #expect(jobs.map { $0["status"] as? String } == ["upToDate", "upToDate"])
        // From another directory, the same file: the state's paths are absolute.
        try FileManager.default.createDirectory(atPath: cli.path("elsewhere"), withIntermediateDirectories: true)
        let (process, stdout, stderr) = try cli.start(
            ["run", "../sequencer.yml"], environment: ["SEQUENCER_LOG": "debug"], in: "elsewhere")
        let fromElsewhere = try await cli.finish(process, stdout, stderr)
        #expect(fromElsewhere.status == 0 && fromElsewhere.stderr.contains(Self.shortcut), "\(fromElsewhere.output)")
        #expect(cli.lines("gen.count") == 1)
    }

    @Test func anEditedInputRunsItsJobAndWhatNeedsIt() async throws {
        let cli = try await madeUpToDate()
        defer { cli.remove() }
        try cli.write("src.txt", "two, longer\n")
        let (changed, shortcut) = try await run(cli, ["run", "--explain"])
        #expect(!shortcut)
        #expect(changed.stdout.contains("explain: gen runs: input src.txt changed"), "\(changed.output)")
        #expect(cli.lines("gen.count") == 2 && cli.lines("use.count") == 2)
        // The run wrote fingerprints: the state went with them; the next no-op run keeps a new one.
        #expect(try await run(cli).shortcut == false)
        #expect(try await run(cli).shortcut == true)
    }

    @Test func aTouchedInputTakesTheUsualWayAndRunsNothing() async throws {
        let cli = try await madeUpToDate()
        defer { cli.remove() }
        try cli.write("src.txt", "one\n")  // the same bytes, a new modification time
        let (touched, shortcut) = try await run(cli)
        #expect(!shortcut && touched.stdout.contains("2 up to date"), "\(touched.output)")
        #expect(cli.lines("gen.count") == 1)
        #expect(try await run(cli).shortcut, "the usual way kept a state with the new stamp")
    }

    @Test func aMissingOrRewrittenOutputRunsItsJob() async throws {
        let cli = try await madeUpToDate()
        defer { cli.remove() }
        try FileManager.default.removeItem(atPath: cli.path("out/use.txt"))
        #expect(try await run(cli).shortcut == false)
        #expect(cli.lines("gen.count") == 1 && cli.lines("use.count") == 2)
        _ = try await run(cli)
        try cli.write("gen.txt", "by hand\n")
        #expect(try await run(cli).shortcut == false)
        #expect(cli.lines("gen.count") == 2)
    }

    @Test func anEditedWorkflowFileTakesTheUsualWay() async throws {
        let cli = try await madeUpToDate()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.yaml + "\n# a comment\n")
        let (same, shortcut) = try await run(cli)
        #expect(!shortcut && same.stdout.contains("2 up to date"), "\(same.output)")
        try cli.write("sequencer.yml", Self.yaml.replacingOccurrences(of: "echo u >>", with: "echo U >>"))
        #expect(try await run(cli).shortcut == false)
        #expect(cli.lines("gen.count") == 1 && cli.lines("use.count") == 2)
    }

    @Test func anEditedIncludedFileTakesTheUsualWay() async throws {
        let main = """
            include: [more.yml]
            jobs:
              gen:
                run: echo g >> gen.count; cat src.txt > gen.txt
                inputs: [src.txt]
                outputs: [gen.txt]
            """
        let more = """
            jobs:
              use:
                needs: [gen]
                run: echo u >> use.count; cat gen.txt > out/use.txt
                outputs: [out/use.txt]
            """
        let cli = try await madeUpToDate(main, with: ["more.yml": more])
        defer { cli.remove() }
        #expect(try await run(cli).shortcut)
        // From another directory: the included file is the same file (kept by absolute path).
        try FileManager.default.createDirectory(atPath: cli.path("elsewhere"), withIntermediateDirectories: true)
        let (process, stdout, stderr) = try cli.start(["run", "../sequencer.yml"], environment: ["SEQUENCER_LOG": "debug"], in: "elsewhere")
        let fromElsewhere = try await cli.finish(process, stdout, stderr)
        #expect(fromElsewhere.status == 0 && fromElsewhere.stderr.contains(Self.shortcut), "\(fromElsewhere.output)")
        try cli.write("more.yml", more.replacingOccurrences(of: "echo u >>", with: "echo U >>"))
        #expect(try await run(cli).shortcut == false)
        #expect(cli.lines("use.count") == 2)
    }

    /// Runs that write fingerprints (a selection, `--force`) drop the state; options the
    /// shortcut does not serve (`--force`, `--json`, a selection) go the usual way.
    @Test func otherRunsDropTheStateOrGoTheUsualWay() async throws {
        let cli = try await madeUpToDate()
        defer { cli.remove() }
        #expect(try await run(cli, ["run", "sequencer.yml", "gen"]).shortcut == false)
        #expect(try await run(cli, ["run", "--json"]).shortcut == false)
        #expect(try await run(cli).shortcut, "neither wrote a fingerprint")
        #expect(try await run(cli, ["run", "--force"]).shortcut == false)
        #expect(cli.lines("gen.count") == 2)
        #expect(try await run(cli).shortcut == false, "--force rewrote the outputs and their fingerprints")
        #expect(try await run(cli).shortcut)
        let bad = try await cli.run(["run", "--grace-period", "soon"])
        #expect(bad.status == 2 && bad.stderr.contains("--grace-period"), "\(bad.output)")
    }

    /// A glob input, or a variable in a path, may mean other files without a stamp changing:
    /// such files keep no state, and every no-op run decides the usual way.
    @Test(arguments: [
        ("inputs: [src.txt]", "inputs: ['src.tx?']"),
        ("outputs: [gen.txt]", "outputs: [$GEN_OUT]"),
    ])
    func filesAStateCannotDescribeKeepNone(_ replacing: String, _ with: String) async throws {
        let cli = try await madeUpToDate(Self.yaml.replacingOccurrences(of: replacing, with: with)
            .replacingOccurrences(of: "jobs:", with: "env: {GEN_OUT: gen.txt}\njobs:"))
        defer { cli.remove() }
        #expect(try await run(cli).shortcut == false)
        #expect(cli.lines("gen.count") == 1)
    }

    /// A template over files takes the shortcut while its files are the same; a new file is a
    /// new job, which the usual way runs.
    @Test func aTemplateOverFilesTakesTheShortcutUntilAFileComes() async throws {
        let yaml = """
            jobs:
              copy-${stem}:
                for: { files: ["src/*.txt"] }
                run: cp ${item} out/${stem}.copy; echo ${stem} >> copies.count
                outputs: ["out/${stem}.copy"]
            """
        let cli = try await madeUpToDate(yaml, with: ["src/a.txt": "a\n"])
        defer { cli.remove() }
        #expect(try await run(cli).shortcut)
        try cli.write("src/b.txt", "b\n")
        let (added, shortcut) = try await run(cli)
        #expect(!shortcut && added.stdout.contains("1 up to date, 1 succeeded"), "\(added.output)")
        #expect(cli.lines("copies.count") == 2)
        _ = try await run(cli)
        #expect(try await run(cli).shortcut)
    }

    /// The files are checked once the journal's lock is held: a run that waited for another
    /// (here, a file sharing the journal) while that one changed an input does not take the
    /// shortcut on what it saw before waiting.
    @Test func filesAreCheckedAfterWaitingForTheJournal() async throws {
        let cli = try await madeUpToDate()
        defer { cli.remove() }
        try cli.write("other.yml", """
            jobs:
              hold: "touch started; while [ ! -f gate ]; do sleep 0.01; done"
            """)
        let (holder, holderOut, holderErr) = try cli.start(["run", "other.yml"])
        #expect(await eventually { FileManager.default.fileExists(atPath: cli.path("started")) })
        let (waiter, waiterOut, waiterErr) = try cli.start(["run"], environment: ["SEQUENCER_LOG": "debug"])
        let stderr = Locked("")  // not `Mutex`, which the sanitizer cannot see
        let reader = Thread {
            while true {
                let data = waiterErr.fileHandleForReading.availableData
                if data.isEmpty { break }
                stderr.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
        reader.start()
        #expect(await eventually { stderr.withLock { $0.contains("sequencer: waiting:") } })
        try cli.write("src.txt", "changed while it waited\n")
        try cli.write("gate", "")
        #expect(try await cli.finish(holder, holderOut, holderErr).status == 0)
        let read = Pipe()  // its standard error is the thread's: nothing to read here
        try read.fileHandleForWriting.close()
        let waited = try await cli.finish(waiter, waiterOut, read)
        #expect(waited.status == 0, "\(waited.output)")
        #expect(!stderr.withLock { $0.contains(Self.shortcut) }, "\(stderr.withLock { $0 })")
        #expect(cli.lines("gen.count") == 2, "gen ran for the changed input")
    }

    /// `sequencer` and `sequencer run` with no argument are decided before the arguments are
    /// parsed, and print and record what a run with arguments does.
    @Test func aRunWithNoArgumentTakesTheShortcutBeforeParsing() async throws {
        let cli = try await madeUpToDate()
        defer { cli.remove() }
        let (bare, bareShortcut) = try await run(cli, [])
        let (plain, plainShortcut) = try await run(cli, ["run"])
        let (parsed, parsedShortcut) = try await run(cli, ["run", "--keep-going"])
        #expect(bareShortcut && plainShortcut && parsedShortcut, "\(bare.output)\n\(plain.output)\n\(parsed.output)")
        let early = "before the arguments were parsed"
        #expect(bare.stderr.contains(early) && plain.stderr.contains(early), "\(bare.output)\n\(plain.output)")
        #expect(!parsed.stderr.contains(early), "\(parsed.output)")
        #expect(bare.stdout.hasPrefix("sequencer: run #3 of sequencer.yml"), "\(bare.output)")
        #expect(plain.stdout.hasPrefix("sequencer: run #4 of sequencer.yml"), "\(plain.output)")
        for result in [bare, plain, parsed] {
            #expect(result.stdout.split(separator: "\n").last?.hasSuffix(": 2 up to date") == true, "\(result.output)")
        }
        let runs = try await cli.run(["runs", "--json"]).jsonArray()
        #expect(runs.map { $0["upToDate"] as? Int } == [2, 2, 2, 2, 0])
        #expect(cli.lines("gen.count") == 1 && cli.lines("use.count") == 1)
    }

    /// What the usual run refuses before it starts is refused when no argument is given too:
    /// the shortcut before parsing leaves it to the usual run.
    @Test func aRunWithNoArgumentStillRefusesABadKeepRuns() async throws {
        let cli = try await madeUpToDate()
        defer { cli.remove() }
        let refused = try await cli.run([], environment: ["SEQUENCER_KEEP_RUNS": "many"])
        #expect(refused.status == 2, "\(refused.output)")
        #expect(refused.stderr.contains("SEQUENCER_KEEP_RUNS must be a number of runs"), "\(refused.output)")
        #expect(try await cli.run(["runs", "--json"]).jsonArray().count == 2, "nothing recorded")
    }

    /// The warnings a run prints (a template whose files are none) are printed by the shortcut too.
    @Test func theShortcutPrintsTheWarningsTheRunPrinted() async throws {
        let cli = try await madeUpToDate(Self.yaml + """

              stub-${stem}:
                for: { files: ["none/*.x"] }
                run: touch ${stem}.y
                outputs: ["${stem}.y"]
            """)
        defer { cli.remove() }
        let (taken, shortcut) = try await run(cli)
        #expect(shortcut, "\(taken.output)")
        #expect(taken.stderr.contains("warning:") && taken.stderr.contains("none/*.x"), "\(taken.stderr)")
    }
}
