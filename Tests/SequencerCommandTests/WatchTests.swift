import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// `sequencer run --watch`, end to end: what a change runs again, a change during a run,
/// Ctrl-C, and a workflow file edited into an invalid one.
@Suite(.suiteTimeLimit)
struct WatchTests {
    @Test func aChangedInputRunsItsJobAndTheJobsThatNeedItAgainAndNoOther() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src/a.txt", "a\n")
        try cli.write("src/b.txt", "b\n")
        try cli.write("sequencer.yml", """
            jobs:
              a:
                run: echo a >> ran.log
                inputs: [src/a.txt]
              uses-a:
                needs: [a]
                run: echo uses-a >> ran.log
              b:
                run: echo b >> ran.log
                inputs: ["src/**/*.txt"]
              c:
                run: echo c >> ran.log
                inputs: [c.txt]
                outputs: [c.out]
            """)
        try cli.write("c.txt", "c\n")
        let watcher = try Watcher(cli)
        #expect(await watcher.waitFor("[watch] watching"), "\(watcher.text)")
        #expect(ranCounts(cli) == ["a": 1, "uses-a": 1, "b": 1, "c": 1], "\(watcher.text)")

        try cli.write("src/a.txt", "a2\n")
        #expect(await watcher.waitFor("[watch] watching", times: 2), "\(watcher.text)")
        #expect(watcher.text.contains("[watch] input src/a.txt changed: running 3 jobs"), "\(watcher.text)")
        // b's glob matches src/a.txt; c is not affected.
        #expect(ranCounts(cli) == ["a": 2, "uses-a": 2, "b": 2, "c": 1], "\(watcher.text)")

        // A new file in a new directory under a ** glob.
        try FileManager.default.createDirectory(atPath: cli.path("src/deep/er"), withIntermediateDirectories: true)
        try cli.write("src/deep/er/d.txt", "d\n")
        #expect(await watcher.waitFor("[watch] watching", times: 3), "\(watcher.text)")
        #expect(ranCounts(cli) == ["a": 2, "uses-a": 2, "b": 3, "c": 1], "\(watcher.text)")

        // The same bytes written again, and a file no job reads: no run.
        try cli.write("src/a.txt", "a2\n")
        try cli.write("src/notes.md", "n\n")
        try cli.write("c.txt", "c2\n")
        #expect(await watcher.waitFor("[watch] watching", times: 4), "\(watcher.text)")
        #expect(watcher.text.contains("[watch] input c.txt changed: running 1 job"), "\(watcher.text)")
        #expect(ranCounts(cli) == ["a": 2, "uses-a": 2, "b": 3, "c": 2], "\(watcher.text)")

        #expect(await watcher.stop() == 130, "\(watcher.text)")
    }

    @Test func aChangeDuringARunTerminatesItsJobsAndRunsAgain() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("in.txt", "one\n")
        try cli.write("sequencer.yml", """
            jobs:
              long:
                run: trap 'echo term >> terms.log; exit 1' TERM; echo started >> starts.log; sleep 100 & wait
                inputs: [in.txt]
            """)
        let watcher = try Watcher(cli, ["--grace-period", "10s"])
        #expect(await eventually { cli.lines("starts.log") == 1 }, "\(watcher.text)")
        try cli.write("in.txt", "two\n")
        #expect(await eventually { cli.lines("starts.log") == 2 }, "\(watcher.text)")
        #expect(cli.lines("terms.log") == 1, "\(watcher.text)")
        #expect(await watcher.waitFor("[watch] input in.txt changed: stopping the run"), "\(watcher.text)")
        #expect(await watcher.waitFor("[watch] input in.txt changed: running 1 job"), "\(watcher.text)")

        // Ctrl-C stops the second run's job the same way, and ends the watch.
        #expect(await watcher.stop(SIGINT) == 130, "\(watcher.text)")
        #expect(cli.lines("terms.log") == 2, "\(watcher.text)")
        #expect(watcher.text.contains("interrupted: stopping"), "\(watcher.text)")  // the count is a snapshot's, which may lag
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalWhileWatchingEndsWith130(signal: Int32) async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", "jobs:\n  a: echo a >> ran.log\n")
        let watcher = try Watcher(cli)
        #expect(await watcher.waitFor("[watch] watching"), "\(watcher.text)")
        #expect(await watcher.stop(signal) == 130, "\(watcher.text)")
    }

    @Test func anInvalidWorkflowFileIsReportedAndTheWatchGoesOn() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", "jobs:\n  a: echo a >> ran.log\n")
        let watcher = try Watcher(cli)
        #expect(await watcher.waitFor("[watch] watching"), "\(watcher.text)")

        try cli.write("sequencer.yml", "jobs:\n  a:\n    neds: [b]\n    run: echo a >> ran.log\n")
        #expect(await watcher.waitFor("[watch] sequencer.yml has errors"), "\(watcher.text)")
        #expect(await watcher.waitFor("unknown key 'neds'"), "\(watcher.text)")  // on stderr, read apart

        try cli.write("sequencer.yml", "jobs:\n  a: echo a >> ran.log\n  b: echo b >> ran.log\n")
        #expect(await watcher.waitFor("[watch] sequencer.yml changed: running 2 jobs"), "\(watcher.text)")
        #expect(await eventually { ranCounts(cli) == ["a": 2, "b": 1] }, "\(watcher.text)")
        #expect(await watcher.stop() == 130, "\(watcher.text)")
    }

    @Test func aJobThatRewritesItsOwnInputWithTheSameBytesDoesNotLoop() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src.txt", "text\n")
        try cli.write("other.txt", "one\n")
        try cli.write("sequencer.yml", """
            jobs:
              format:
                run: echo format >> ran.log; tr a-z A-Z < src.txt > tmp && mv tmp src.txt
                inputs: [src.txt]
              other:
                run: echo other >> ran.log
                inputs: [other.txt]
            """)
        let watcher = try Watcher(cli)
        // The first run's rewrite is a change (its own, but a change); the second run's is not.
        #expect(await watcher.waitFor("[watch] watching", after: "[watch] input src.txt changed: running"), "\(watcher.text)")
        #expect(ranCounts(cli)["format"] == 2, "\(watcher.text)")
        // Events are handled in order: once a later change has run, a loop would have shown.
        try cli.write("other.txt", "two\n")
        #expect(await watcher.waitFor("[watch] watching", after: "[watch] input other.txt changed"), "\(watcher.text)")
        #expect(ranCounts(cli)["format"] == 2, "\(watcher.text)")
        #expect(cli.read("src.txt") == "TEXT\n")
        #expect(await watcher.stop() == 130, "\(watcher.text)")
    }

    @Test func whatTheJobsDeclareAsOutputsTriggersNothing() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("in.txt", "one\n")
        try cli.write("src/a.txt", "a\n")
        // gen writes into the directory use's glob watches, and the glob matches what it writes.
        try cli.write("sequencer.yml", """
            jobs:
              gen:
                run: echo gen >> ran.log; cat in.txt > src/gen.txt
                inputs: [in.txt]
                outputs: [src/gen.txt]
              use:
                needs: [gen]
                run: echo use >> ran.log
                inputs: ["src/*.txt"]
            """)
        let watcher = try Watcher(cli)
        #expect(await watcher.waitFor("[watch] watching"), "\(watcher.text)")
        try cli.write("in.txt", "two\n")
        #expect(await watcher.waitFor("[watch] watching", after: "[watch] input in.txt changed: running 2 jobs"), "\(watcher.text)")
        // Events are handled in order: once a later change has run, a rerun would have shown.
        try cli.write("src/a.txt", "a2\n")
        #expect(await watcher.waitFor("[watch] watching", after: "[watch] input src/a.txt changed: running 1 job"), "\(watcher.text)")
        #expect(ranCounts(cli) == ["gen": 2, "use": 3], "\(watcher.text)")
        #expect(cli.read("src/gen.txt") == "two\n")
        #expect(await watcher.stop() == 130, "\(watcher.text)")
    }

    @Test func aHeaderNamedByADepfileIsWatched() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("main.c", "int main;\n")
        try cli.write("include/util.h", "int util;\n")
        try cli.write("other.txt", "o\n")
        try cli.write("sequencer.yml", """
            jobs:
              compile:
                run: |
                  echo compile >> ran.log
                  printf 'main.o: main.c include/util.h\\n' > main.d
                  touch main.o
                inputs: [main.c]
                outputs: [main.o]
                depfile: main.d
              other:
                run: echo other >> ran.log
                inputs: [other.txt]
            """)
        let watcher = try Watcher(cli)
        #expect(await watcher.waitFor("[watch] watching"), "\(watcher.text)")
        // include/ is watched once the journal holds compile's dep:include/util.h.
        try cli.write("include/util.h", "int util2;\n")
        #expect(await watcher.waitFor("[watch] watching", after: "[watch] input include/util.h changed: running 1 job"), "\(watcher.text)")
        #expect(ranCounts(cli) == ["compile": 2, "other": 1], "\(watcher.text)")
        #expect(await watcher.stop() == 130, "\(watcher.text)")
    }

    /// How many times each job ran (the lines of `ran.log`).
    private func ranCounts(_ cli: CLI) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in (cli.read("ran.log") ?? "").split(separator: "\n") { counts[String(line), default: 0] += 1 }
        return counts
    }
}
