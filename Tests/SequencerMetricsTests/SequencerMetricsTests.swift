import CoreMetrics
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MetricsTestKit
import Prometheus
import Sequencer
import SequencerMetrics
import Testing

/// A run's figures through swift-metrics, and the endpoint Prometheus scrapes, with a real
/// HTTP client.
@Suite struct SequencerMetricsTests {
    @Test func aRunIsCountedWithItsJobsByStatusItsTimeAndItsCriticalPath() async throws {
        var workflow = Workflow()
        try workflow.add("a") { _ in 1 }
        try workflow.add("b", needs: ["a"]) { _ in
            struct Broken: Error {}
            throw Broken()
        }
        try workflow.add("c", needs: ["b"]) { _ in 3 }
        try workflow.add("d") { _ in 4 }
        let report = await (try workflow.start(RunOptions(keepGoing: true))).report()
        let metrics = TestMetrics()
        RunMetrics.record(report, workflow: "startup", factory: metrics)
        RunMetrics.record(report, workflow: "startup", factory: metrics)
        let run = [("workflow", "startup"), ("status", "failed")]
        #expect(metrics.counterTotal(label: RunMetricNames.runs, dimensions: run) == 2)
        #expect(metrics.counterTotal(label: RunMetricNames.jobs, dimensions: [("workflow", "startup"), ("status", "succeeded")]) == 4)
        #expect(metrics.counterTotal(label: RunMetricNames.jobs, dimensions: [("workflow", "startup"), ("status", "failed")]) == 2)
        #expect(metrics.counterTotal(label: RunMetricNames.jobs, dimensions: [("workflow", "startup"), ("status", "skipped")]) == 2)
        let times = try metrics.expectTimer(RunMetricNames.runTime, run).values
        #expect(times.count == 2 && times.allSatisfy { $0 > 0 })
        let path = try metrics.expectTimer(RunMetricNames.criticalPath, run).values
        #expect(path.count == 2 && path.allSatisfy { $0 > 0 && $0 <= times[0] }, "within the run: \(path), \(times)")
    }

    static func get(_ url: URL, method: String = "GET") async throws -> (Int, String, String?) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), http?.value(forHTTPHeaderField: "Content-Type"))
    }

    @Test func theEndpointServesItsRegistryAtMetricsAndNothingElse() async throws {
        let endpoint = try await MetricsEndpoint.start(host: "127.0.0.1", port: 0)
        let counter = CoreMetrics.Counter(label: "jobs_total", dimensions: [("kind", "upload")], factory: PrometheusMetricsFactory(registry: endpoint.registry))
        counter.increment(by: 3)
        let base = try #require(URL(string: "http://127.0.0.1:\(endpoint.port)"))
        let (status, body, type) = try await Self.get(base.appendingPathComponent("metrics"))
        #expect(status == 200 && body.contains("jobs_total{kind=\"upload\"} 3"), "\(body)")
        #expect(type?.hasPrefix("text/plain; version=0.0.4") == true)
        counter.increment()
        #expect(try await Self.get(base.appendingPathComponent("metrics")).1.contains("jobs_total{kind=\"upload\"} 4"), "each scrape reads anew")
        #expect(try await Self.get(base.appendingPathComponent("other")).0 == 404)
        #expect(try await Self.get(base.appendingPathComponent("metrics"), method: "POST").0 == 405)
        await endpoint.close()
        await #expect(throws: (any Error).self) { try await Self.get(base.appendingPathComponent("metrics")) }
    }

    @Test func anAddressInUseIsAnError() async throws {
        let first = try await MetricsEndpoint.start(host: "127.0.0.1", port: 0)
        await #expect(throws: (any Error).self) { try await MetricsEndpoint.start(host: "127.0.0.1", port: first.port) }
        await first.close()
    }
}
