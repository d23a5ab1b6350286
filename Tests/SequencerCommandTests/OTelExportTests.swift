import Foundation
import SequencerTestHelpers
import Testing

/// Whether `--otel`'s tests can run: a Python with opentelemetry-proto for the receiver.
enum OTLPPython {
    static let required = ProcessInfo.processInfo.environment["SEQUENCER_REQUIRE_OTLP"] != nil

    /// The Python that `SEQUENCER_OTLP_PYTHON` names, with opentelemetry-proto (checked when the
    /// receiver starts: no process is started while the tests are being planned).
    static let python: String? = ProcessInfo.processInfo.environment["SEQUENCER_OTLP_PYTHON"].flatMap {
        FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
    }

    static let skipReason: Comment = "no Python with opentelemetry-proto (set SEQUENCER_OTLP_PYTHON)"
}

/// `--otel` against a real OTLP/HTTP receiver on 127.0.0.1 (`Scripts/otlp-receiver.py`, which
/// decodes the protobuf with PyPI's opentelemetry-proto): a local run is one trace, its root
/// and a span per job; a queue's run is one trace across two processes, from the submitter's
/// root through the enqueueing to each worker's attempt.
///
/// The receiver needs a Python with opentelemetry-proto: `SEQUENCER_OTLP_PYTHON` names it (CI
/// makes a venv); without one the suite is skipped, unless `SEQUENCER_REQUIRE_OTLP` is set.
@Suite(.suiteTimeLimit, .enabled(if: OTLPPython.python != nil || OTLPPython.required, OTLPPython.skipReason))
struct OTelExportTests {
    /// The receiver, started for one test: its address and the spans it received.
    final class Receiver {
        let process = Process()
        let endpoint: String
        let out: String

        init(in cli: CLI) async throws {
            let python = try #require(OTLPPython.python, "SEQUENCER_REQUIRE_OTLP is set, and no Python has opentelemetry-proto")
            out = cli.path("spans.jsonl")
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Scripts/otlp-receiver.py").path
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script, "--out", out]
            let stdout = Pipe()
            process.standardOutput = stdout
            try process.run()
            let line = await onThread { () -> String in
                var bytes: [UInt8] = []
                while let byte = try? stdout.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 10 { bytes.append(first) }
                return String(decoding: bytes, as: UTF8.self)
            }
            endpoint = String(line.dropFirst("listening on ".count))
            try #require(endpoint.hasPrefix("http://127.0.0.1:"), "the receiver said: \(line)")
        }

        /// The spans received so far.
        var spans: [[String: Any]] {
            (try? String(contentsOfFile: out, encoding: .utf8))?.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            } ?? []
        }

        func environment(service: String) -> [String: String] {
            ["OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SERVICE_NAME": service, "OTEL_BSP_SCHEDULE_DELAY": "200"]
        }

        // SIGKILL, not waited for: a receiver that inherited an ignored SIGTERM lived on, and
        // `waitUntilExit` in a deinit held the pool's threads for good.
        deinit { kill(process.processIdentifier, SIGKILL) }
    }

    static func named(_ spans: [[String: Any]], _ name: String) -> [[String: Any]] { spans.filter { $0["name"] as? String == name } }

    @Test func aLocalRunIsOneTraceWithASpanPerJob() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            version: 1
            jobs:
              fetch: echo fetched
              build:
                needs: [fetch]
                run: echo built
              lint: exit 3
            """)
        let receiver = try await Receiver(in: cli)
        let result = try await cli.run(["run", "--otel", "--keep-going"], environment: receiver.environment(service: "builder"))
        #expect(result.status == 1, "lint fails: \(result.output)")
        // Sent before the process exited.
        let spans = receiver.spans
        let name = cli.directory.lastPathComponent
        let root = try #require(Self.named(spans, "run \(name)").first, "\(spans.map { $0["name"] ?? "" })")
        #expect(root["parentSpanId"] as? String == "")
        #expect(root["service"] as? String == "builder")
        for job in ["fetch", "build", "lint"] {
            let span = try #require(Self.named(spans, "job \(job)").first, "no span for \(job): \(spans.map { $0["name"] ?? "" })")
            #expect(span["parentSpanId"] as? String == root["spanId"] as? String)
            #expect(span["traceId"] as? String == root["traceId"] as? String)
            #expect((span["start"] as? Int ?? 0) >= (root["start"] as? Int ?? 0) && (span["end"] as? Int ?? 0) <= (root["end"] as? Int ?? 0))
        }
        #expect(Self.named(spans, "job lint").first?["status"] as? Int == 2, "the failure's status is an error")
        let fetch = try #require(Self.named(spans, "job fetch").first), build = try #require(Self.named(spans, "job build").first)
        #expect((fetch["end"] as? Int ?? 0) <= (build["start"] as? Int ?? 0), "build needs fetch")
    }

    @Test func aQueuesRunIsOneTraceFromTheSubmitterToTheWorker() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            version: 1
            jobs:
              a: echo a
              b:
                needs: [a]
                run: echo b
            """)
        let receiver = try await Receiver(in: cli)
        let queue = cli.path("q.sqlite")
        let worker = try cli.start(["worker", "--queue", queue, "--otel"], environment: receiver.environment(service: "worker"))
        let submitted = try await cli.run(["run", "--queue", queue, "--otel"], environment: receiver.environment(service: "submitter"))
        #expect(submitted.status == 0, "\(submitted.output)")
        _ = try await cli.stopWorker(worker)
        let spans = receiver.spans
        let name = cli.directory.lastPathComponent
        let root = try #require(Self.named(spans, "run \(name)").first, "\(spans.map { $0["name"] ?? "" })")
        #expect(root["service"] as? String == "submitter")
        let enqueue = try #require(spans.first { ($0["name"] as? String)?.hasPrefix("enqueue") == true && $0["service"] as? String == "submitter" })
        #expect(enqueue["parentSpanId"] as? String == root["spanId"] as? String)
        let attempts = spans.filter { ($0["name"] as? String)?.hasPrefix("job workflow:") == true }
        #expect(attempts.count == 2, "\(spans.map { $0["name"] ?? "" })")
        for attempt in attempts {
            #expect(attempt["service"] as? String == "worker")
            #expect(attempt["traceId"] as? String == root["traceId"] as? String, "one trace across the two processes")
            #expect(attempt["parentSpanId"] as? String == enqueue["spanId"] as? String)
        }
    }
}
