import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The journal, end to end through the built binary: up-to-date checks (`--force`,
/// `--explain`, `--no-journal`, `--journal`), the `runs`, `show`, `trace`, `resume` and `gc`
/// commands, one recorder at a time (`--no-wait`), and journals that must be refused.
@Suite(.suiteTimeLimit)
struct JournalCommandTests {
    @Suite struct UpToDate {
        @Test func aSecondRunSkipsJobsWithOutputsAndRerunsJobsWithout() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("in.txt", "one\n")
            try cli.write("sequencer.yml", """
                jobs:
                  build:
                    run: echo b >> build.count; cat in.txt > out.txt
                    inputs: [in.txt]
                    outputs: [out.txt]
                  stamp: echo s >> stamp.count
                """)
            let first = try await cli.run(["run"])
            #expect(first.status == 0, "\(first.output)")
            #expect(first.stdout.contains("sequencer: run #1 of sequencer.yml"))
            #expect(first.counts == "2 succeeded", "\(first.output)")

            let second = try await cli.run(["run"])
            #expect(second.status == 0, "\(second.output)")
            #expect(second.stdout.contains("sequencer: run #2 of sequencer.yml"))
            #expect(second.counts == "1 up to date, 1 succeeded", "\(second.output)")
            #expect(cli.lines("build.count") == 1)
            #expect(cli.lines("stamp.count") == 2)
            #expect(cli.read("out.txt") == "one\n")
        }

        @Test func changedInputContentRerunsTheJobAndItsDependentsButTouchingItDoesNot() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("src.txt", "one\n")
            try cli.write("other.txt", "other\n")
            // `use` reads gen.txt without declaring it: only gen's fingerprint makes it rerun.
            try cli.write("sequencer.yml", """
                jobs:
                  gen:
                    run: echo g >> gen.count; cat src.txt > gen.txt
                    inputs: [src.txt]
                    outputs: [gen.txt]
                  use:
                    needs: [gen]
                    run: echo u >> use.count; cat gen.txt > use.txt
                    outputs: [use.txt]
                  other:
                    run: echo o >> other.count; cat other.txt > other.out
                    inputs: [other.txt]
                    outputs: [other.out]
                """)
            #expect(try await cli.run(["run"]).status == 0)

            // A new modification time, the same content: nothing runs.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: cli.path("src.txt"))
            let touched = try await cli.run(["run", "--explain"])
            #expect(touched.status == 0, "\(touched.output)")
            #expect(touched.counts == "3 up to date", "\(touched.output)")
            #expect(touched.explanations == [])

            try cli.write("src.txt", "two\n")
            let changed = try await cli.run(["run", "--explain"])
            #expect(changed.status == 0, "\(changed.output)")
            #expect(changed.counts == "1 up to date, 2 succeeded", "\(changed.output)")
            #expect(Set(changed.explanations) == [
                "explain: gen runs: input src.txt changed",
                "explain: use runs: needed job 'gen' changed",
            ])
            #expect(cli.lines("gen.count") == 2)
            #expect(cli.lines("use.count") == 2)
            #expect(cli.lines("other.count") == 1)
            #expect(cli.read("use.txt") == "two\n")
        }

        @Test func aDeletedOutputRerunsItsJob() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", """
                jobs:
                  build:
                    run: echo b >> build.count; echo made > out.txt
                    outputs: [out.txt]
                """)
            #expect(try await cli.run(["run"]).status == 0)
            try FileManager.default.removeItem(atPath: cli.path("out.txt"))
            let result = try await cli.run(["run", "--explain"])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.explanations == ["explain: build runs: output out.txt is missing"])
            #expect(cli.lines("build.count") == 2)
            #expect(cli.read("out.txt") == "made\n")
        }

        @Test func aChangedCommandOrEnvironmentRerunsTheJob() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            func write(level: String, flavour: String, command: String) throws {
                try cli.write("sequencer.yml", """
                    env: { LEVEL: \(level) }
                    jobs:
                      build:
                        run: \(command)
                        env: { FLAVOUR: \(flavour) }
                        outputs: [out.txt]
                    """)
            }
            let command = #"echo "$LEVEL $FLAVOUR" >> build.count; echo "$LEVEL $FLAVOUR" > out.txt"#
            try write(level: "one", flavour: "plain", command: command)
            #expect(try await cli.run(["run"]).status == 0)
            #expect(try await cli.run(["run"]).counts == "1 up to date")

            let cases: [(level: String, flavour: String, command: String, reason: String)] = [
                ("two", "plain", command, "its environment changed"),  // the file's env
                ("two", "spicy", command, "its environment changed"),  // the job's env
                ("two", "spicy", command + "; true", "its command changed"),
            ]
            for (index, change) in cases.enumerated() {
                try write(level: change.level, flavour: change.flavour, command: change.command)
                let changed = try await cli.run(["run", "--explain"])
                #expect(changed.status == 0, "\(changed.output)")
                #expect(changed.explanations == ["explain: build runs: \(change.reason)"], "\(changed.output)")
                #expect(cli.lines("build.count") == index + 2)
                // Recorded: the run after is up to date again.
                #expect(try await cli.run(["run"]).counts == "1 up to date")
            }
            #expect(cli.read("out.txt") == "two spicy\n")
        }

        @Test func forceRerunsEveryJob() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", """
                jobs:
                  gen:
                    run: echo g >> gen.count; touch gen.txt
                    outputs: [gen.txt]
                  use:
                    needs: [gen]
                    run: echo u >> use.count; touch use.txt
                    outputs: [use.txt]
                  stamp: echo s >> stamp.count
                """)
            #expect(try await cli.run(["run"]).status == 0)
            let forced = try await cli.run(["run", "--force", "--explain"])
            #expect(forced.status == 0, "\(forced.output)")
            #expect(forced.counts == "3 succeeded", "\(forced.output)")
            #expect(Set(forced.explanations) == [
                "explain: gen runs: --force", "explain: use runs: --force", "explain: stamp runs: --force",
            ])
            for name in ["gen", "use", "stamp"] { #expect(cli.lines("\(name).count") == 2, "\(name)") }
            let after = try await cli.run(["run", "--explain"])
            #expect(after.counts == "2 up to date, 1 succeeded", "\(after.output)")
            #expect(after.explanations == ["explain: stamp runs: it declares no outputs, so it always runs"])
        }

        @Test func theFirstRunExplainsThatNoSuccessIsRecorded() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", """
                jobs:
                  gen:
                    run: touch gen.txt
                    outputs: [gen.txt]
                  stamp: echo s >> stamp.count
                """)
            let result = try await cli.run(["run", "--explain"])
            #expect(result.status == 0, "\(result.output)")
            #expect(Set(result.explanations) == [
                "explain: gen runs: no earlier success is recorded",
                "explain: stamp runs: it declares no outputs, so it always runs",
            ])
        }

        @Test func aNewFileMatchingAGlobInputRerunsTheJob() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("src/a.txt", "a\n")
            try cli.write("sequencer.yml", """
                jobs:
                  cat:
                    run: echo c >> cat.count; cat src/*.txt > all.txt
                    inputs: ["src/*.txt"]
                    outputs: [all.txt]
                """)
            #expect(try await cli.run(["run"]).status == 0)
            // A file the pattern does not match changes nothing.
            try cli.write("src/notes.md", "not an input\n")
            #expect(try await cli.run(["run"]).counts == "1 up to date")

            try cli.write("src/b.txt", "b\n")
            let result = try await cli.run(["run", "--explain"])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.explanations == ["explain: cat runs: input src/b.txt is new"])
            #expect(cli.lines("cat.count") == 2)
            #expect(cli.read("all.txt") == "a\nb\n")
        }

        @Test func inputsAndOutputsAreRelativeToTheJobsWorkingDirectory() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sub/in.txt", "one\n")
            try cli.write("sequencer.yml", """
                jobs:
                  build:
                    cwd: sub
                    run: echo b >> build.count; cat in.txt > out.txt
                    inputs: [in.txt]
                    outputs: [out.txt]
                """)
            #expect(try await cli.run(["run"]).status == 0)
            #expect(try await cli.run(["run"]).counts == "1 up to date")
            try cli.write("sub/in.txt", "two\n")
            let result = try await cli.run(["run", "--explain"])
            #expect(result.explanations == ["explain: build runs: input in.txt changed"], "\(result.output)")
            #expect(cli.read("sub/out.txt") == "two\n")
            #expect(cli.lines("sub/build.count") == 2)
        }

        @Test func withoutTheJournalNothingIsRecordedAndNothingIsUpToDate() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", """
                jobs:
                  build:
                    run: echo b >> build.count; touch out.txt
                    outputs: [out.txt]
                """)
            for _ in 1...2 {
                let result = try await cli.run(["run", "--no-journal"])
                #expect(result.status == 0, "\(result.output)")
                #expect(result.counts == "1 succeeded", "\(result.output)")
                #expect(!result.stdout.contains("sequencer: run #"))
            }
            #expect(cli.lines("build.count") == 2)
            #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer/journal.sqlite")))
            #expect(try await cli.run(["runs"]).status == 2)
            let explained = try await cli.run(["run", "--no-journal", "--explain"])
            #expect(explained.stderr.contains("warning: --explain has nothing to explain without the journal"), "\(explained.output)")
        }

        @Test func aJournalElsewhereIsUsedInsteadOfTheDefault() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", """
                jobs:
                  build:
                    run: echo b >> build.count; touch out.txt
                    outputs: [out.txt]
                """)
            #expect(try await cli.run(["run", "--journal", "elsewhere.sqlite"]).status == 0)
            #expect(try await cli.run(["run", "--journal", "elsewhere.sqlite"]).counts == "1 up to date")
            #expect(FileManager.default.fileExists(atPath: cli.path("elsewhere.sqlite")))
            #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer/journal.sqlite")))
            let runs = try await cli.run(["runs", "--journal", "elsewhere.sqlite", "--json"])
            #expect(runs.status == 0, "\(runs.output)")
            #expect(try runs.jsonArray().count == 2)
            // The default journal has never seen this file: it runs again.
            #expect(try await cli.run(["run"]).counts == "1 succeeded")
            #expect(cli.lines("build.count") == 2)
        }

        /// A failed attempt may leave a broken output behind, yet the fingerprint of the last
        /// success stays recorded: putting the inputs back as they were then makes the job "up
        /// to date" with the failed attempt's output.
        @Test func aFailedAttemptsOutputIsNotUpToDate() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("in.txt", "good\n")
            try cli.write("sequencer.yml", """
                jobs:
                  build:
                    run: tr a-z A-Z < in.txt > out.txt && ! grep -q BAD out.txt
                    inputs: [in.txt]
                    outputs: [out.txt]
                """)
            #expect(try await cli.run(["run"]).status == 0)
            try cli.write("in.txt", "bad\n")
            #expect(try await cli.run(["run"]).status == 1)
            try cli.write("in.txt", "good\n")
            let result = try await cli.run(["run"])
            #expect(result.status == 0, "\(result.output)")
            // The failed attempt rewrote out.txt after the first success: it is not that success's output.
            #expect(cli.read("out.txt") == "GOOD\n")
            #expect(result.stdout.contains("1 succeeded"), "\(result.output)")
        }
    }

    @Suite struct History {
        @Test func runsListsTheFilesRunsNewestFirst() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", """
                jobs:
                  build:
                    run: touch out.txt
                    outputs: [out.txt]
                  check: test ! -f broken
                """)
            #expect(try await cli.run(["run"]).status == 0)
            try cli.write("broken", "")
            #expect(try await cli.run(["run"]).status == 1)

            let table = try await cli.run(["runs"])
            #expect(table.status == 0, "\(table.output)")
            let rows = table.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            #expect(rows.first == ["RUN", "STATE", "STARTED", "TIME", "JOBS", "OK", "UP-TO-DATE", "FAILED", "CANCELLED", "SKIPPED", "WORKFLOW"])
            #expect(rows.dropFirst().map { Array($0.prefix(2)) } == [["#2", "failed"], ["#1", "succeeded"]])
            #expect(rows.dropFirst().allSatisfy { $0.last == cli.path("sequencer.yml") })

            let json = try await cli.run(["runs", "--json"])
            #expect(json.status == 0, "\(json.output)")
            let runs = try json.jsonArray()
            #expect(runs.map { $0["id"] as? Int } == [2, 1])
            #expect(runs.map { $0["state"] as? String } == ["failed", "succeeded"])
            #expect(runs.map { $0["jobs"] as? Int } == [2, 2])
            #expect(runs.map { $0["succeeded"] as? Int } == [0, 2])
            #expect(runs.map { $0["failed"] as? Int } == [1, 0])
            #expect(runs.map { $0["sessions"] as? Int } == [1, 1])
            #expect(runs.allSatisfy { $0["workflow"] as? String == cli.path("sequencer.yml") })

            let limited = try await cli.run(["runs", "--json", "--limit", "1"])
            #expect(try limited.jsonArray().map { $0["id"] as? Int } == [2])
        }

        @Test func showPrintsEachJobsOutcomeAndItsCapturedOutput() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", """
                jobs:
                  built:
                    run: echo building; touch built.txt
                    outputs: [built.txt]
                  greet: echo hello from greet
                  broken:
                    needs: [built]
                    run: echo oops >&2; exit 3
                """)
            #expect(try await cli.run(["run", "--keep-going"]).status == 1)
            #expect(try await cli.run(["run", "--keep-going"]).status == 1)

            let text = try await cli.run(["show"])
            #expect(text.status == 0, "\(text.output)")
            let lines = text.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("run #2 of \(cli.path("sequencer.yml")): failed, 3 jobs") == true, "\(text.stdout)")
            let rows = Dictionary(lines.map { ($0.split(separator: " ").first.map(String.init) ?? "", $0) }) { a, _ in a }
            #expect(rows["built"]?.contains("up to date") == true, "\(text.stdout)")
            #expect(rows["greet"]?.contains("succeeded") == true && rows["greet"]?.contains("exit code 0") == true, "\(text.stdout)")
            #expect(rows["broken"]?.contains("failed") == true && rows["broken"]?.contains("exit code 3") == true, "\(text.stdout)")

            let json = try await cli.run(["show", "1", "--json"])
            #expect(json.status == 0, "\(json.output)")
            let document = try json.jsonObject()
            let run = try #require(document["run"] as? [String: Any])
            #expect(run["id"] as? Int == 1)
            #expect(run["state"] as? String == "failed")
            #expect(run["jobs"] as? Int == 3)
            let jobs = try #require(document["jobs"] as? [[String: Any]])
            let byName = Dictionary(jobs.map { ($0["name"] as? String ?? "", $0) }) { a, _ in a }
            #expect(Set(byName.keys) == ["built", "greet", "broken"])
            #expect(byName["built"]?["status"] as? String == "succeeded")
            #expect(byName["built"]?["attempts"] as? Int == 1)
            #expect(byName["built"]?["exitCode"] as? Int == 0)
            #expect(byName["broken"]?["status"] as? String == "failed")
            #expect(byName["broken"]?["exitCode"] as? Int == 3)
            #expect(byName["broken"]?["attempts"] as? Int == 1)

            let last = try await cli.run(["show", "last", "--json"]).jsonObject()
            let lastJobs = try #require(last["jobs"] as? [[String: Any]])
            #expect(lastJobs.first { $0["name"] as? String == "built" }?["status"] as? String == "upToDate")

            let greet = try await cli.run(["show", "--output", "greet"])
            #expect(greet.status == 0, "\(greet.output)")
            #expect(greet.stdout == "hello from greet\n")
            #expect(try await cli.run(["show", "1", "--output", "broken"]).stdout == "oops\n")
            #expect(try await cli.run(["show", "1", "--output", "built"]).stdout == "building\n")

            let unknownJob = try await cli.run(["show", "--output", "nosuch"])
            #expect(unknownJob.status == 2)
            #expect(unknownJob.stderr.contains("has no job 'nosuch'"), "\(unknownJob.output)")
            let unknownRun = try await cli.run(["show", "9"])
            #expect(unknownRun.status == 2)
            #expect(unknownRun.stderr.contains("there is no run #9"), "\(unknownRun.output)")
        }

        /// The output a run records can be read from anywhere, not only from the directory the
        /// run was started in.
        @Test func showFindsTheOutputFromAnotherDirectory() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("project/sequencer.yml", "jobs:\n  greet: echo hello\n")
            // Started from the project's directory, with a relative path.
            let (process, stdout, stderr) = try cli.start(["run", "sequencer.yml"], in: "project")
            #expect(try await cli.finish(process, stdout, stderr).status == 0)
            let result = try await cli.run(["show", "-f", "project/sequencer.yml", "--output", "greet"])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.stdout == "hello\n")
        }

        @Test func traceIsAChromeTraceWithASlicePerAttempt() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", """
                jobs:
                  flaky:
                    run: test "$SEQUENCER_ATTEMPT" = 2 || exit 4
                    retry: { attempts: 3, backoff: 10ms }
                  other: "true"
                """)
            #expect(try await cli.run(["run"]).status == 0)
            let result = try await cli.run(["trace", "last"])
            #expect(result.status == 0, "\(result.output)")
            let document = try result.jsonObject()
            #expect(document["displayTimeUnit"] as? String == "ms")
            let events = try #require(document["traceEvents"] as? [[String: Any]])
            let slices = events.filter { $0["ph"] as? String == "X" && $0["cat"] as? String == "job" }
            let attempts = slices.map { "\($0["name"] as? String ?? "?") \(($0["args"] as? [String: Any])?["attempt"] as? Int ?? 0)" }
            #expect(attempts.sorted() == ["flaky 1", "flaky 2", "other 1"])
            #expect(slices.allSatisfy { ($0["ts"] as? NSNumber)?.doubleValue ?? -1 >= 0 && ($0["dur"] as? NSNumber)?.doubleValue ?? -1 >= 0 })

            let byNumber = try await cli.run(["trace", "1"])
            #expect(byNumber.stdout == result.stdout)
            #expect(try await cli.run(["trace", "2"]).status == 2)
        }

        @Test func gcKeepsTheNewestRunsAndDeletesTheOthersOutput() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", """
                jobs:
                  build:
                    run: echo b >> build.count; touch out.txt
                    outputs: [out.txt]
                  greet: echo hello
                """)
            for _ in 1...3 { #expect(try await cli.run(["run"]).status == 0) }
            for run in 1...3 {
                #expect(FileManager.default.fileExists(atPath: cli.path(".sequencer/output/\(run)/greet.log")))
            }

            let result = try await cli.run(["gc", "--keep", "1", "--json"])
            #expect(result.status == 0, "\(result.output)")
            let document = try result.jsonObject()
            #expect(document["deletedRuns"] as? [Int] == [1, 2])
            let directories = try #require(document["deletedOutputDirectories"] as? [String])
            #expect(directories.count == 2)
            #expect(directories.map { URL(fileURLWithPath: $0).standardizedFileURL.path }.sorted()
                    == [cli.path(".sequencer/output/1"), cli.path(".sequencer/output/2")])
            #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer/output/1")))
            #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer/output/2")))
            #expect(FileManager.default.fileExists(atPath: cli.path(".sequencer/output/3/greet.log")))

            let runs = try await cli.run(["runs", "--json"])
            #expect(try runs.jsonArray().map { $0["id"] as? Int } == [3])
            let again = try await cli.run(["gc", "--keep", "1"])
            #expect(again.status == 0, "\(again.output)")
            #expect(again.stdout.contains("deleted 0 runs and 0 output directories"), "\(again.stdout)")

            // Fingerprints belong to the file, not to a run: gc keeps what is up to date.
            #expect(try await cli.run(["run"]).counts == "1 up to date, 1 succeeded")
            #expect(cli.lines("build.count") == 1)
        }

        @Test func aRunWhoseProcessDiedIsInterruptedUntilResumed() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            // The job's shell outlives sequencer's kill -9: it ends by itself within 30 s at most.
            try cli.write("sequencer.yml", """
                jobs:
                  hold: echo $$ > started; i=0; while [ ! -f go ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done
                """)
            let (process, stdout, stderr) = try cli.start(["run"])
            #expect(await eventually { cli.read("started")?.hasSuffix("\n") ?? false })
            let shell = try #require(cli.read("started").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
            let recording = try await cli.run(["runs", "--json"]).jsonArray()
            #expect(recording.map { $0["state"] as? String } == ["running"])

            kill(process.processIdentifier, SIGKILL)
            _ = try await cli.finish(process, stdout, stderr)
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
            let table = try await cli.run(["runs"])
            #expect(table.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ").prefix(2) }
                    == [["#1", "interrupted"]], "\(table.stdout)")
            #expect(try await cli.run(["runs", "--json"]).jsonArray().map { $0["state"] as? String } == ["interrupted"])

            cli.release()
            #expect(await eventually { !processIsAlive(shell) }, "the killed run's job did not end")
            let resumed = try await cli.run(["resume"])
            #expect(resumed.status == 0, "\(resumed.output)")
            let runs = try await cli.run(["runs", "--json"]).jsonArray()
            #expect(runs.map { $0["state"] as? String } == ["succeeded"])
            #expect(runs.map { $0["sessions"] as? Int } == [2])
        }
    }

    @Suite struct Resume {
        @Test func resumeRunsWhatDidNotSucceedAndRestoresTheRest() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", """
                jobs:
                  first: echo 1 >> first.count
                  flaky:
                    needs: [first]
                    run: echo f >> flaky.count; test -f ok
                  after:
                    needs: [flaky]
                    run: echo a >> after.count
                  aside: echo s >> aside.count
                """)
            let failed = try await cli.run(["run", "--keep-going"])
            #expect(failed.status == 1, "\(failed.output)")
            #expect(failed.counts == "2 succeeded, 1 failed, 1 skipped", "\(failed.output)")

            try cli.write("ok", "")
            let resumed = try await cli.run(["resume"])
            #expect(resumed.status == 0, "\(resumed.output)")
            #expect(resumed.stdout.contains("sequencer: resuming #1 of \(cli.path("sequencer.yml"))"), "\(resumed.stdout)")
            #expect(resumed.counts == "2 done before, 2 succeeded", "\(resumed.output)")
            #expect(cli.lines("first.count") == 1)
            #expect(cli.lines("aside.count") == 1)
            #expect(cli.lines("flaky.count") == 2)
            #expect(cli.lines("after.count") == 1)

            let runs = try await cli.run(["runs", "--json"]).jsonArray()
            #expect(runs.count == 1)
            #expect(runs.first?["id"] as? Int == 1)
            #expect(runs.first?["state"] as? String == "succeeded")
            #expect(runs.first?["sessions"] as? Int == 2)
            #expect(runs.first?["succeeded"] as? Int == 4)

            let again = try await cli.run(["resume"])
            #expect(again.status == 0, "\(again.output)")
            #expect(again.stdout.contains("nothing to resume"), "\(again.stdout)")
            #expect(cli.lines("flaky.count") == 2)
            #expect(cli.lines("first.count") == 1)
        }

        @Test func resumeWithoutTheJournalIsABadArgument() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", "jobs:\n  a: \"true\"\n")
            #expect(try await cli.run(["run"]).status == 0)
            let result = try await cli.run(["resume", "--no-journal"])
            #expect(result.status == 2)
            #expect(!result.stderr.isEmpty)
        }
    }

    @Suite struct OneRecorderAtATime {
        @Test func aSecondRunFailsWithNoWaitOrWaitsForTheFirst() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            defer { cli.release() }
            try cli.write("sequencer.yml", """
                jobs:
                  hold:
                    run: echo h >> hold.count; touch started; while [ ! -f go ]; do sleep 0.01; done
                    timeout: 60s
                """)
            let (first, firstOut, firstErr) = try cli.start(["run"])
            #expect(await eventually { FileManager.default.fileExists(atPath: cli.path("started")) })

            let refused = try await cli.run(["run", "--no-wait"])
            #expect(refused.status == 2, "\(refused.output)")
            #expect(refused.stderr.contains("process \(first.processIdentifier) is recording a run"), "\(refused.output)")
            #expect(cli.lines("hold.count") == 1)

            let (second, secondOut, secondErr) = try cli.start(["run"])
            // Its first words on standard error say that it waits (or it ended without them).
            let announced = await onThread { () -> String in
                var text = ""
                while !text.contains("\n") {
                    let chunk = secondErr.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                }
                return text
            }
            #expect(announced.hasPrefix(
                "sequencer: waiting: process \(first.processIdentifier) is recording a run in this journal ("), "\(announced)")
            #expect(announced.contains(".sequencer/journal.sqlite)"), "\(announced)")
            #expect(cli.lines("hold.count") == 1, "the second run started a job while the first recorded")

            cli.release()
            let firstResult = try await cli.finish(first, firstOut, firstErr)
            let secondResult = try await cli.finish(second, secondOut, secondErr)
            #expect(firstResult.status == 0, "\(firstResult.output)")
            #expect(secondResult.status == 0, "\(announced)\(secondResult.output)")
            #expect(firstResult.stdout.contains("sequencer: run #1 of"))
            #expect(secondResult.stdout.contains("sequencer: run #2 of"))
            #expect(cli.lines("hold.count") == 2)
            let runs = try await cli.run(["runs", "--json"]).jsonArray()
            #expect(runs.map { $0["id"] as? Int } == [2, 1])
            #expect(runs.map { $0["state"] as? String } == ["succeeded", "succeeded"])
        }
    }

    @Suite struct BadJournals {
        @Test func aFileThatIsNotSQLiteIsRefusedAndLeftAlone() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", "jobs:\n  a: echo a >> a.count\n")
            try cli.write("bad.sqlite", "not a database")
            let before = try Data(contentsOf: URL(fileURLWithPath: cli.path("bad.sqlite")))
            for arguments in [["run", "--journal", "bad.sqlite"], ["runs", "--journal", "bad.sqlite"]] {
                let result = try await cli.run(arguments)
                #expect(result.status == 2, "\(arguments): \(result.output)")
                #expect(result.stderr.contains("not a Sequencer journal"), "\(arguments): \(result.output)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: cli.path("bad.sqlite"))) == before)
            #expect(cli.lines("a.count") == 0, "a job ran without its journal")
        }

        @Test func aJournalOfANewerSchemaIsRefusedAndLeftAlone() async throws {
            // Setting the schema version needs SQLite itself; the test target cannot link GRDB.
            let sqlite3 = "/usr/bin/sqlite3"
            guard FileManager.default.isExecutableFile(atPath: sqlite3) else {
                print("skipped: \(sqlite3) is needed to mark a journal as newer")
                return
            }
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", "jobs:\n  a: echo a >> a.count\n")
            #expect(try await cli.run(["run"]).status == 0)
            let journal = cli.path(".sequencer/journal.sqlite")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: sqlite3)
            process.arguments = [journal, "PRAGMA user_version = 99;"]
            try process.run()
            await onThread { process.waitUntilExit() }
            #expect(process.terminationStatus == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: journal))

            for arguments in [["run"], ["runs"], ["show"], ["resume"], ["gc"]] {
                let result = try await cli.run(arguments)
                #expect(result.status == 2, "\(arguments): \(result.output)")
                #expect(result.stderr.contains("newer"), "\(arguments): \(result.output)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == before)
            #expect(cli.lines("a.count") == 1, "a job ran without its journal")
        }

        @Test func journalCommandsWithoutAJournalSaySo() async throws {
            let cli = try CLI()
            defer { cli.remove() }
            try cli.write("sequencer.yml", "jobs:\n  a: \"true\"\n")
            for command in ["runs", "show", "trace", "resume", "gc"] {
                let result = try await cli.run([command])
                #expect(result.status == 2, "\(command): \(result.output)")
                #expect(result.stderr.contains("there is no journal here"), "\(command): \(result.output)")
            }
            #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer")), "reading created the journal")
        }
    }
}

// MARK: - Helpers

extension CLI.Result {
    /// The counts at the end of the summary line: `1 up to date, 2 succeeded`.
    var counts: String? {
        let verdicts = ["sequencer: succeeded: ", "sequencer: failed: ", "sequencer: interrupted: "]
        guard let summary = stdout.split(separator: "\n").last(where: { line in verdicts.contains { line.hasPrefix($0) } }),
              let separator = summary.range(of: ": ", options: .backwards) else { return nil }
        return String(summary[separator.upperBound...])
    }

    /// The lines of `--explain`, in the order printed.
    var explanations: [String] {
        stdout.split(separator: "\n").filter { $0.hasPrefix("explain: ") }.map(String.init)
    }

    func jsonObject() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "\(output)")
    }

    func jsonArray() throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [[String: Any]], "\(output)")
    }
}

extension CLI {
    /// The number of lines in a file of the directory (0 when there is no file): how often a
    /// job that appends a line to it ran.
    func lines(_ name: String) -> Int {
        read(name)?.split(separator: "\n").count ?? 0
    }

    /// Lets jobs that wait for a file named `go` finish.
    func release() {
        _ = FileManager.default.createFile(atPath: path("go"), contents: nil)
    }

    /// Deletes the directory.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

}
