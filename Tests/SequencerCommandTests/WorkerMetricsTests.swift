import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PostgresTestSupport
import SequencerTestHelpers
import Testing

/// `sequencer worker --metrics`: the queue's metrics served to Prometheus, scraped over HTTP by
/// a real client while the worker runs jobs from a real queue.
@Suite(.suiteTimeLimit) struct WorkerMetricsTests {
    /// The body of `GET url`, and its status.
    static func get(_ url: URL) async throws -> (Int, String) {
        let (data, response) = try await URLSession.shared.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// The value of the sample whose name and labels begin as `sample` (`name{labels`), if any.
    static func value(_ text: String, _ sample: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(sample) {
            if let value = line.split(separator: " ").last.flatMap({ Double($0) }) { return value }
        }
        return nil
    }

    @Test(arguments: QueueKind.testable)
    func aScrapeShowsEachEndByStatusTheRunTimesAndTheWorkersAlive(_ kind: QueueKind) async throws {
        let cli = try CLI()
        try await kind.withQueue(in: cli) { queue in
            try cli.write("sequencer.yml", """
                version: 1
                jobs:
                  a: echo a
                  b: { needs: [a], run: exit 3 }
                  c: { needs: [b], run: echo never }
                """)
            let worker = try Watcher(cli, command: ["worker", "--queue", queue, "-j", "2", "--metrics", "127.0.0.1:0"])
            #expect(await worker.waitFor("/metrics"), "\(worker.text)")
            let address = try #require(worker.text.firstMatch(of: /metrics at (http:\/\/127\.0\.0\.1:[0-9]+\/metrics)/)?.1)
            let url = try #require(URL(string: String(address)))

            let failed = try await cli.run(["run", "--queue", queue])
            #expect(failed.status == 1, "\(failed.output)")
            let workflow = "workflow:" + cli.directory.lastPathComponent
            let ended = "sequencer_queue_jobs_ended_total{kind=\"\(workflow)\",lane=\"\","
            // The worker counts an end once the queue recorded it: the run's end may be seen first.
            var text = ""
            let counted = await eventually { () async -> Bool in
                text = (try? await Self.get(url).1) ?? ""
                return Self.value(text, ended + "status=\"failed\"}") == 1
            }
            #expect(counted, "\(text)")
            #expect(Self.value(text, ended + "status=\"succeeded\"}") == 1, "\(text)")
            #expect(Self.value(text, "sequencer_queue_run_seconds_count{kind=\"\(workflow)\",lane=\"\",status=\"failed\"}") == 1,
                    "a failure's run time is recorded: \(text)")
            #expect(Self.value(text, "sequencer_queue_jobs_enqueued_total{kind=\"\(workflow)\",lane=\"\"}") == nil,
                    "`run --queue` enqueued them, in another process: \(text)")
            #expect(text.contains("# TYPE sequencer_queue_jobs_ended_total counter"), "\(text)")
            #expect(text.contains("# TYPE sequencer_queue_wait_seconds histogram"), "\(text)")
            #expect(Self.value(text, "sequencer_queue_workers") == 1, "the gauges were read as the worker started: \(text)")

            let (status, body) = try await Self.get(url.deletingLastPathComponent().appendingPathComponent("other"))
            #expect(status == 404 && body.contains("/metrics"))
            #expect(await worker.stop() == 130, "\(worker.text)")
        }
    }

    @Test func aMetricsAddressThatIsNotHostAndPortIsRefusedBeforeAnythingStarts() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", "version: 1\njobs:\n  a: echo a\n")
        let refused = try await cli.run(["worker", "--queue", cli.path("q.sqlite"), "--metrics", "127.0.0.1:http"])
        #expect(refused.status == 64 || refused.status == 2, "\(refused.output)")
        #expect(refused.stderr.contains("--metrics 127.0.0.1:http: give HOST:PORT"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: cli.path("q.sqlite")), "no queue was made")
    }
}
