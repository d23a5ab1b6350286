import Foundation
import SequencerTestSupport
import Testing

/// `sequencer run --queue` and `sequencer worker`: a run submitted to a durable queue (an SQLite
/// file here) and run by worker processes.
@Suite(.timeLimit(.minutes(3))) struct QueueRunTests {
    /// Stops a worker with SIGINT and checks that it stopped as documented.
    func stop(_ worker: (Process, Pipe, Pipe), in cli: CLI) async throws -> CLI.Result {
        kill(worker.0.processIdentifier, SIGINT)
        let result = try await cli.finish(worker.0, worker.1, worker.2)
        #expect(result.status == 130, "\(result.output)")
        return result
    }

    @Test func aSubmittedRunIsRunByAWorkerAndReportedWithItsFailures() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            version: 1
            lanes: { narrow: 1 }
            jobs:
              a: echo building a
              b: { needs: [a], run: echo b > b.txt, lane: narrow }
              c: { needs: [a], run: echo c fails; exit 3 }
              d: { needs: [b, c], run: echo never > d.txt }
            """)
        let worker = try cli.start(["worker", "--queue", cli.path("q.sqlite"), "-j", "2"])
        let failed = try await cli.run(["run", "--queue", cli.path("q.sqlite")])
        #expect(failed.status == 1, "\(failed.output)")
        for line in ["ok a", "ok b", "FAILED c", "exit code 3", "c fails", "skipped d: 'c', which it needs, did not succeed", "run 1 failed"] {
            #expect(failed.stdout.contains(line), "no '\(line)' in \(failed.stdout)")
        }
        #expect(cli.read("b.txt") == "b\n" && cli.read("d.txt") == nil)
        // Read back from the queue, as from any machine.
        let runs = try await cli.run(["runs", "--queue", cli.path("q.sqlite")])
        #expect(runs.status == 0 && runs.stdout.contains("#1") && runs.stdout.contains("failed"), "\(runs.output)")
        let shown = try await cli.run(["show", "1", "--queue", cli.path("q.sqlite")])
        #expect(shown.stdout.contains("exit code 3") && shown.stdout.contains("skipped"), "\(shown.output)")
        #expect(try await cli.run(["show", "1", "--queue", cli.path("q.sqlite"), "--output", "c"]).stdout == "c fails\n")
        let missing = try await cli.run(["runs", "--queue", cli.path("none.sqlite")])
        #expect(missing.status == 2 && missing.stderr.contains("there is no queue file"), "\(missing.output)")

        try cli.write("sequencer.yml", "version: 1\njobs:\n  a: echo again > again.txt\n")
        let succeeded = try await cli.run(["run", "--queue", cli.path("q.sqlite"), "--json"])
        #expect(succeeded.status == 0, "\(succeeded.output)")
        let report = try JSONSerialization.jsonObject(with: Data(succeeded.stdout.utf8)) as? [String: Any]
        #expect(report?["state"] as? String == "succeeded" && report?["run"] as? Int == 2)
        let reportJobs = report?["jobs"] as? [[String: Any]]
        #expect(reportJobs?.count == 1 && reportJobs?.first?["name"] as? String == "a" && reportJobs?.first?["exit"] as? String == "exit code 0")
        // `show --json` prints the same document as `run --json`.
        let shownJSON = try await cli.run(["show", "2", "--queue", cli.path("q.sqlite"), "--json"])
        let document = try JSONSerialization.jsonObject(with: Data(shownJSON.stdout.utf8)) as? [String: Any]
        #expect(document.map { Set($0.keys) } == report.map { Set($0.keys) }, "\(shownJSON.stdout)")
        #expect((document?["jobs"] as? [[String: Any]])?.first.map { Set($0.keys) } == reportJobs?.first.map { Set($0.keys) })
        #expect(cli.read("again.txt") == "again\n")
        let stopped = try await stop(worker, in: cli)
        #expect(stopped.stderr.contains("serving workflow"))
    }

    @Test func theRunGoesOnWhenItsSubmitterIsKilledAndAttachFollowsIt() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            version: 1
            jobs:
              a: touch started; while [ ! -f release ]; do sleep 0.02; done
              b: { needs: [a], run: echo b > b.txt }
            """)
        let worker = try cli.start(["worker", "--queue", cli.path("q.sqlite")])
        let submitter = try cli.start(["run", "--queue", cli.path("q.sqlite")])
        #expect(await eventually { FileManager.default.fileExists(atPath: cli.path("started")) })
        kill(submitter.0.processIdentifier, SIGKILL)
        _ = try await cli.finish(submitter.0, submitter.1, submitter.2)
        try cli.write("release", "")
        let attached = try await cli.run(["run", "--queue", cli.path("q.sqlite"), "--attach", "1"])
        #expect(attached.status == 0, "\(attached.output)")
        #expect(attached.stdout.contains("run 1 succeeded"))
        #expect(cli.read("b.txt") == "b\n")
        _ = try await stop(worker, in: cli)
    }

    @Test func ctrlCCancelsTheRunAndStopsItsCommandOnTheWorker() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            version: 1
            jobs:
              a: echo $$ > pid; sleep 60
              b: { needs: [a], run: echo b > b.txt }
            """)
        let worker = try cli.start(["worker", "--queue", cli.path("q.sqlite"), "--heartbeat", "100ms"])
        let submitter = try cli.start(["run", "--queue", cli.path("q.sqlite")])
        #expect(await eventually { cli.read("pid")?.hasSuffix("\n") == true })
        let pid = try #require(Int32(cli.read("pid")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        kill(submitter.0.processIdentifier, SIGINT)
        let cancelled = try await cli.finish(submitter.0, submitter.1, submitter.2)
        #expect(cancelled.status == 130, "\(cancelled.output)")
        #expect(cancelled.stdout.contains("cancelled b") && cancelled.stdout.contains("run 1 cancelled"), "\(cancelled.stdout)")
        #expect(await eventually { processHasEnded(pid) }, "the job's command still runs")
        #expect(cli.read("b.txt") == nil)
        _ = try await stop(worker, in: cli)
    }
}
