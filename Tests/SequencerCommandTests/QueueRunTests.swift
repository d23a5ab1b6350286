import Foundation
import PostgresTestSupport
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// `sequencer run --queue` and `sequencer worker`: a run submitted to a durable queue (an SQLite
/// file, or a PostgreSQL database of a real server) and run by worker processes.
@Suite(.suiteTimeLimit) struct QueueRunTests {
    @Test(arguments: QueueKind.testable)
    func aSubmittedRunIsRunByAWorkerAndReportedWithItsFailures(_ kind: QueueKind) async throws {
        let cli = try CLI()
        try await kind.withQueue(in: cli) { queue in
            try cli.write("sequencer.yml", """
                version: 1
                lanes: { narrow: 1 }
                jobs:
                  a: echo building a
                  b: { needs: [a], run: echo b > b.txt, lane: narrow }
                  c: { needs: [a], run: echo c fails; exit 3 }
                  d: { needs: [b, c], run: echo never > d.txt }
                """)
            let worker = try cli.start(["worker", "--queue", queue, "-j", "2"])
            let failed = try await cli.run(["run", "--queue", queue])
            #expect(failed.status == 1, "\(failed.output)")
            for line in ["ok a", "ok b", "FAILED c", "exit code 3", "c fails", "skipped d: 'c', which it needs, did not succeed", "run 1 failed"] {
                #expect(failed.stdout.contains(line), "no '\(line)' in \(failed.stdout)")
            }
            #expect(cli.read("b.txt") == "b\n" && cli.read("d.txt") == nil)
            // Read back from the queue, as from any machine.
            let runs = try await cli.run(["runs", "--queue", queue])
            #expect(runs.status == 0 && runs.stdout.contains("#1") && runs.stdout.contains("failed"), "\(runs.output)")
            let shown = try await cli.run(["show", "1", "--queue", queue])
            #expect(shown.stdout.contains("exit code 3") && shown.stdout.contains("skipped"), "\(shown.output)")
            #expect(try await cli.run(["show", "1", "--queue", queue, "--output", "c"]).stdout == "c fails\n")
            let missing = try await cli.run(["runs", "--queue", cli.path("none.sqlite")])
            #expect(missing.status == 2 && missing.stderr.contains("there is no queue file"), "\(missing.output)")

            try cli.write("sequencer.yml", "version: 1\njobs:\n  a: echo again > again.txt\n")
            let succeeded = try await cli.run(["run", "--queue", queue, "--json"])
            #expect(succeeded.status == 0, "\(succeeded.output)")
            let report = try JSONSerialization.jsonObject(with: Data(succeeded.stdout.utf8)) as? [String: Any]
            // The run as `runs --json` lists it, under `run`: one document, whatever the history.
            let reported = report?["run"] as? [String: Any]
            #expect(reported?["state"] as? String == "succeeded" && reported?["id"] as? Int == 2 && reported?["succeeded"] as? Int == 1)
            let reportJobs = report?["jobs"] as? [[String: Any]]
            #expect(reportJobs?.count == 1 && reportJobs?.first?["name"] as? String == "a" && reportJobs?.first?["exit"] as? String == "exit code 0")
            // `show --json` prints the same document as `run --json`.
            let shownJSON = try await cli.run(["show", "2", "--queue", queue, "--json"])
            let document = try JSONSerialization.jsonObject(with: Data(shownJSON.stdout.utf8)) as? [String: Any]
            #expect(document.map { Set($0.keys) } == report.map { Set($0.keys) }, "\(shownJSON.stdout)")
            #expect((document?["jobs"] as? [[String: Any]])?.first.map { Set($0.keys) } == reportJobs?.first.map { Set($0.keys) })
            #expect(cli.read("again.txt") == "again\n")
            let stopped = try await cli.stopWorker(worker)
            #expect(stopped.stderr.contains("serving workflow"))
            if let password = URLComponents(string: queue)?.password, !password.isEmpty {
                #expect(!(failed.output + stopped.output + runs.output).contains(password), "the queue's password was printed")
            }
        }
    }

    @Test(arguments: QueueKind.testable)
    func resumeTraceAndGCWorkOnAQueueAsOnTheJournal(_ kind: QueueKind) async throws {
        let cli = try CLI()
        try await kind.withQueue(in: cli) { queue in
            try cli.write("sequencer.yml", """
                version: 1
                jobs:
                  a: echo a >> a.log
                  b: { needs: [a], run: test -f fixed }
                  c: { needs: [b], run: echo c >> c.log }
                """)
            let worker = try cli.start(["worker", "--queue", queue, "-j", "2"])
            #expect(try await cli.run(["run", "--queue", queue]).status == 1)
            #expect(cli.read("c.log") == nil)
            try cli.write("fixed", "")
            let resumed = try await cli.run(["resume", "--queue", queue])
            #expect(resumed.status == 0, "\(resumed.output)")
            #expect(resumed.stdout.contains("run 2 succeeded"), "\(resumed.stdout)")
            #expect(cli.read("a.log") == "a\n", "a succeeded in run 1: not run again")
            #expect(cli.read("c.log") == "c\n")
            let nothing = try await cli.run(["resume", "2", "--queue", queue])
            #expect(nothing.status == 0 && nothing.stdout.contains("nothing to resume"), "\(nothing.output)")

            let trace = try await cli.run(["trace", "1", "--queue", queue])
            let events = try JSONSerialization.jsonObject(with: Data(trace.stdout.utf8)) as? [String: Any]
            let slices = (events?["traceEvents"] as? [[String: Any]])?.filter { $0["ph"] as? String == "X" }.compactMap { $0["name"] as? String }
            #expect(Set(slices ?? []).isSuperset(of: ["a", "b"]), "\(trace.stdout)")

            // A resumed run that failed again resumes with what succeeded in both.
            try FileManager.default.removeItem(atPath: cli.path("fixed"))
            try cli.write("sequencer.yml", """
                version: 1
                jobs:
                  a: echo a >> a.log
                  b: { needs: [a], run: test -f fixed }
                  c: { needs: [b], run: echo c >> c.log }
                  d: { needs: [c], run: test -f done }
                """)
            #expect(try await cli.run(["run", "--queue", queue]).status == 1, "run 3 fails at b")
            try cli.write("fixed", "")
            #expect(try await cli.run(["resume", "--queue", queue]).status == 1, "run 4 fails at d")
            try cli.write("done", "")
            let last = try await cli.run(["resume", "--queue", queue])
            #expect(last.status == 0 && last.stdout.contains("run 5 of") && last.stdout.contains("1 jobs"), "\(last.output)")
            #expect(cli.read("a.log") == "a\na\n" && cli.read("c.log") == "c\nc\n", "a and c ran once since run 3")

            let collected = try await cli.run(["gc", "--queue", queue, "--keep", "1"])
            #expect(collected.status == 0 && collected.stdout.contains("deleted 4 runs"), "\(collected.output)")
            let runs = try await cli.run(["runs", "--queue", queue, "--json"])
            let listed = try JSONSerialization.jsonObject(with: Data(runs.stdout.utf8)) as? [[String: Any]]
            #expect(listed?.compactMap { $0["id"] as? Int } == [5])
            _ = try await cli.stopWorker(worker)
        }
    }

    /// The fingerprints are the queue's: a job found up to date by one worker was recorded by
    /// another; an input edit reruns the job and what needs it; --force runs everything.
    @Test(arguments: QueueKind.testable)
    func aJobWhoseCommandAndInputsDidNotChangeIsUpToDateOnAnyWorker(_ kind: QueueKind) async throws {
        let cli = try CLI()
        try await kind.withQueue(in: cli) { queue in
            try cli.write("sequencer.yml", """
                version: 1
                jobs:
                  gen: { run: echo gen >> gen.log; cp in.txt out.txt, inputs: [in.txt], outputs: [out.txt] }
                  use: { needs: [gen], run: echo use >> use.log; cp out.txt final.txt, inputs: [out.txt], outputs: [final.txt] }
                """)
            try cli.write("in.txt", "1\n")
            let first = try cli.start(["worker", "--queue", queue])
            #expect(try await cli.run(["run", "--queue", queue]).status == 0)
            _ = try await cli.stopWorker(first)
            let second = try cli.start(["worker", "--queue", queue])
            let again = try await cli.run(["run", "--queue", queue])
            #expect(again.status == 0 && again.stdout.contains("up to date gen") && again.stdout.contains("up to date use"), "\(again.output)")
            #expect(cli.read("gen.log") == "gen\n" && cli.read("use.log") == "use\n")
            try cli.write("in.txt", "2\n")
            let edited = try await cli.run(["run", "--queue", queue])
            #expect(edited.status == 0 && edited.stdout.contains("ok gen") && edited.stdout.contains("ok use"), "\(edited.output)")
            #expect(cli.read("final.txt") == "2\n" && cli.read("gen.log") == "gen\ngen\n")
            #expect(try await cli.run(["run", "--queue", queue, "--force"]).stdout.contains("ok gen"))
            #expect(cli.read("use.log") == "use\nuse\nuse\n")
            _ = try await cli.stopWorker(second)
        }
    }

    /// A worker with `--lanes gpu` takes only the gpu lane's jobs; one with `--lanes cpu` the rest.
    @Test func aWorkerWithLanesTakesOnlyTheJobsOfThoseLanes() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            version: 1
            lanes: { gpu: 1, cpu: 2 }
            jobs:
              prep: { lane: cpu, run: echo prep }
              train: { lane: gpu, needs: [prep], run: echo train }
              report: { lane: cpu, needs: [train], run: echo report }
            """)
        let queue = cli.path("q.sqlite")
        let unknown = try await cli.run(["worker", "--queue", queue, "--lanes", "tpu"])
        #expect(unknown.status == 2 && unknown.stderr.contains("no workflow file given declares lane 'tpu'"), "\(unknown.output)")
        let gpu = try cli.start(["worker", "--queue", queue, "--lanes", "gpu"])
        let cpu = try cli.start(["worker", "--queue", queue, "--lanes", "cpu"])
        #expect(try await cli.run(["run", "--queue", queue]).status == 0)
        let shown = try await cli.run(["show", "1", "--queue", queue, "--json"])
        let jobs = (try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["jobs"] as? [[String: Any]] ?? []
        var workers: [String: String] = [:]
        for job in jobs { workers[job["name"] as? String ?? ""] = job["worker"] as? String }
        #expect(workers["train"]?.hasSuffix(":\(gpu.0.processIdentifier)") == true, "\(workers)")
        #expect(workers["prep"]?.hasSuffix(":\(cpu.0.processIdentifier)") == true && workers["report"]?.hasSuffix(":\(cpu.0.processIdentifier)") == true, "\(workers)")
        #expect(try await cli.stopWorker(gpu).stderr.contains("lanes gpu"))
        _ = try await cli.stopWorker(cpu)
    }

    /// Two projects named `proj`: a worker serving the other one does not run this one's job
    /// (another command under the same name), and gives it back unfailed for a worker that has
    /// this workflow's files.
    @Test func aWorkerWhoseCopyOfTheWorkflowDiffersGivesTheJobBackUnfailed() async throws {
        let cli = try CLI()
        try cli.write("x/proj/sequencer.yml", "version: 1\njobs:\n  a: echo here > a.txt\n")
        try cli.write("y/proj/sequencer.yml", "version: 1\njobs:\n  a: echo elsewhere > a.txt\n")
        let queue = cli.path("q.sqlite")
        let other = try cli.start(["worker", "--queue", queue, "-f", cli.path("y/proj/sequencer.yml")])
        let submitter = try cli.start(["run", cli.path("x/proj/sequencer.yml"), "--queue", queue])
        var refused = false
        // Long: three processes start and poll one queue on a loaded machine (a full CI run
        // once took more than 30 s); the suite's time limit still bounds it.
        let deadline = ContinuousClock.now + .seconds(150)
        while !refused, ContinuousClock.now < deadline {
            refused = try await cli.run(["show", "1", "--queue", queue]).stdout.contains("not run here")
            if !refused { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(refused, "the other project's worker never refused the job")
        let worker = try cli.start(["worker", "--queue", queue, "-f", cli.path("x/proj/sequencer.yml")])
        let followed = try await cli.finish(submitter.0, submitter.1, submitter.2)
        #expect(followed.status == 0, "\(followed.output)")
        #expect(cli.read("x/proj/a.txt") == "here\n" && cli.read("y/proj/a.txt") == nil)
        let shown = try await cli.run(["show", "1", "--queue", queue, "--json"])
        let document = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        let job = (document?["jobs"] as? [[String: Any]])?.first
        #expect(job?["status"] as? String == "succeeded" && job?["attempts"] as? Int == 1, "\(shown.stdout)")
        let stopped = try await cli.stopWorker(other)
        #expect(stopped.stderr.contains("runs another command for 'a'"), "\(stopped.stderr)")
        _ = try await cli.stopWorker(worker)
    }

    @Test(arguments: QueueKind.testable)
    func theRunGoesOnWhenItsSubmitterIsKilledAndAttachFollowsIt(_ kind: QueueKind) async throws {
        let cli = try CLI()
        try await kind.withQueue(in: cli) { queue in
            try cli.write("sequencer.yml", """
                version: 1
                jobs:
                  a: touch started; while [ ! -f release ]; do sleep 0.02; done
                  b: { needs: [a], run: echo b > b.txt }
                """)
            let worker = try cli.start(["worker", "--queue", queue])
            let submitter = try cli.start(["run", "--queue", queue])
            #expect(await eventually { FileManager.default.fileExists(atPath: cli.path("started")) })
            kill(submitter.0.processIdentifier, SIGKILL)
            _ = try await cli.finish(submitter.0, submitter.1, submitter.2)
            try cli.write("release", "")
            let attached = try await cli.run(["run", "--queue", queue, "--attach", "1"])
            #expect(attached.status == 0, "\(attached.output)")
            #expect(attached.stdout.contains("run 1 succeeded"))
            #expect(cli.read("b.txt") == "b\n")
            _ = try await cli.stopWorker(worker)
        }
    }

    @Test(arguments: QueueKind.testable)
    func ctrlCCancelsTheRunAndStopsItsCommandOnTheWorker(_ kind: QueueKind) async throws {
        let cli = try CLI()
        try await kind.withQueue(in: cli) { queue in
            try cli.write("sequencer.yml", """
                version: 1
                jobs:
                  a: echo $$ > pid; sleep 60
                  b: { needs: [a], run: echo b > b.txt }
                """)
            let worker = try cli.start(["worker", "--queue", queue, "--heartbeat", "100ms"])
            let submitter = try cli.start(["run", "--queue", queue])
            #expect(await eventually { cli.read("pid")?.hasSuffix("\n") == true })
            let pid = try #require(Int32(cli.read("pid")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
            kill(submitter.0.processIdentifier, SIGINT)
            let cancelled = try await cli.finish(submitter.0, submitter.1, submitter.2)
            #expect(cancelled.status == 130, "\(cancelled.output)")
            #expect(cancelled.stdout.contains("cancelled b") && cancelled.stdout.contains("run 1 cancelled"), "\(cancelled.stdout)")
            #expect(await eventually { processHasEnded(pid) }, "the job's command still runs")
            #expect(cli.read("b.txt") == nil)
            _ = try await cli.stopWorker(worker)
        }
    }
}

/// The queues the CLI is tried on: an SQLite file, and a database of a real PostgreSQL server
/// (when its binaries exist; see `TestServer`).
enum QueueKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static let testable: [QueueKind] = TestServer.available ? allCases : [.sqlite]

    /// Runs `body` with the location of a new, empty queue.
    func withQueue(in cli: CLI, _ body: (String) async throws -> Void) async throws {
        switch self {
        case .sqlite: try await body(cli.path("q.sqlite"))
        case .postgres: try await TestServer.withDatabase { try await body($0) }
        }
    }
}
