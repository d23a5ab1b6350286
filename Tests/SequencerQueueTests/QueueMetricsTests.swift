import CoreMetrics
import Foundation
import MetricsTestKit
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// A worker's metrics, on a manual clock, into swift-metrics' test factory: each end counted
/// once by kind, lane and status, with its run time; the wait in the queue; the gauges read
/// from the database by one process at a time.
@Suite(.suiteTimeLimit)
struct QueueMetricsTests {
    static func queue(_ path: String, _ clock: ManualClock, _ metrics: TestMetrics) async throws -> DurableQueue {
        try await DurableQueue(
            store: .sqlite(path: path), options: .init(clock: clock, metrics: metrics, gaugeInterval: .seconds(7)))
    }

    static func ended(_ metrics: TestMetrics, _ kind: String, lane: String = "", _ status: String) -> Int64 {
        metrics.counterTotal(label: QueueMetricNames.ended, dimensions: [("kind", kind), ("lane", lane), ("status", status)])
    }

    static func ran(_ metrics: TestMetrics, _ kind: String, lane: String = "", _ status: String) -> [Int64] {
        (try? metrics.expectTimer(QueueMetricNames.ran, [("kind", kind), ("lane", lane), ("status", status)]).values) ?? []
    }

    static func gauge(_ metrics: TestMetrics, _ label: String, _ dimensions: [(String, String)] = []) -> Double? {
        try? metrics.expectGauge(label, dimensions).lastValue
    }

    @Test func eachEndIsCountedOnceByKindLaneAndStatusWithItsRunTime() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let metrics = TestMetrics()
        let queue = try await Self.queue(directory.file("q.sqlite"), clock, metrics)
        try await queue.lane("net", width: 2)
        let gate = Gate()
        queue.register("upload") { (_: Int, _: JobContext) -> Int in
            await gate.wait()
            return 1
        }
        queue.register("broken") { (_: Int, _: JobContext) -> Int in
            struct Broken: Error {}
            throw Broken()
        }
        queue.register("flaky") { (_: Int, context: JobContext) -> Int in
            struct Flaky: Error {}
            if context.durableJob?.attempt == 1 { throw Flaky() }
            return 2
        }
        let upload = try await queue.enqueue("upload", 1, lane: "net")
        try await DurableQueueTests.working(queue) { () async throws in
            #expect(await BoundedArrivals.at(gate, 1))
            clock.advance(by: .seconds(2))
            gate.open()
            #expect(try await queue.result(of: upload, as: Int.self) == 1)
            #expect(await eventually { Self.ended(metrics, "upload", lane: "net", "succeeded") == 1 })
            #expect(Self.ran(metrics, "upload", lane: "net", "succeeded") == [2_000_000_000], "its run time on the queue's clock")

            let broken = try await queue.enqueue("broken", 1)
            let after = try await queue.enqueue("upload", 2, needs: [broken])
            await #expect(throws: DurableJobError.self) { try await queue.result(of: broken, as: Int.self) }
            await #expect(throws: DurableJobError.self) { try await queue.result(of: after, as: Int.self) }
            #expect(await eventually { Self.ended(metrics, "broken", "failed") == 1 })
            #expect(await eventually { Self.ended(metrics, "upload", "skipped") == 1 }, "skipped in the failure's transaction")
            #expect(Self.ran(metrics, "broken", "failed").count == 1, "a failure's run time is recorded too")

            let flaky = try await queue.enqueue("flaky", 1, retry: .exponential(attempts: 2, initial: .seconds(1), jitter: 0))
            #expect(await eventually { Self.ended(metrics, "flaky", "retried") == 1 })
            #expect(Self.ended(metrics, "flaky", "failed") == 0, "a failure with an attempt left is a retry")
            clock.advance(by: .seconds(1))
            #expect(try await queue.result(of: flaky, as: Int.self) == 2)
            #expect(await eventually { Self.ended(metrics, "flaky", "succeeded") == 1 })
        }
        #expect(metrics.counterTotal(label: QueueMetricNames.enqueued, dimensions: [("kind", "upload"), ("lane", "net")]) == 1)
        #expect(metrics.counterTotal(label: QueueMetricNames.enqueued, dimensions: [("kind", "flaky"), ("lane", "")]) == 1)
        #expect(metrics.counterTotal(label: QueueMetricNames.ended) == 5, "four attempts and a skip, each counted once")
        #expect(try metrics.expectTimer(QueueMetricNames.waited, [("kind", "flaky"), ("lane", "")]).values == [0, 0],
                "each attempt started as soon as it could: at once, then at its retry time")
    }

    /// A job whose worker died is taken back once its lease runs out: counted where it is taken back.
    @Test func aLeaseThatRanOutIsCountedByTheWorkerThatTookTheJobBack() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let metrics = TestMetrics()
        let queue = try await DurableQueue(
            store: .sqlite(path: directory.file("q.sqlite")),
            options: .init(lease: .seconds(30), heartbeat: .seconds(10), clock: clock, metrics: metrics))
        queue.register("job") { (input: Int, _: JobContext) -> Int in input }
        let id = try await queue.enqueue("job", 4)
        let now = queue.clock.now()
        #expect(try await queue.store.claim(kinds: ["job"], limit: 1, owner: "dead", now: now, leaseUntil: now + 30_000).map(\.id) == [id])
        try await DurableQueueTests.working(queue) { () async throws in
            clock.advance(by: .seconds(31))
            #expect(try await queue.result(of: id, as: Int.self) == 4)
        }
        #expect(Self.ended(metrics, "job", "lease_expired") == 1)
        #expect(Self.ended(metrics, "job", "succeeded") == 1)
        #expect(Self.ran(metrics, "job", "lease_expired").isEmpty, "it did not run here")
    }

    /// A job claimed ahead waits in the worker for a slot: its wait runs until its body starts.
    @Test func theWaitRunsFromWhenAJobCouldRunToItsStart() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let metrics = TestMetrics()
        let queue = try await Self.queue(directory.file("q.sqlite"), clock, metrics)
        let gate = Gate()
        queue.register("edit") { (input: Int, _: JobContext) -> Int in
            if input == 1 { await gate.wait() }
            return input
        }
        let first = try await queue.enqueue("edit", 1)
        let second = try await queue.enqueue("edit", 2)
        try await DurableQueueTests.working(queue, maxConcurrency: 1) { () async throws in
            #expect(await BoundedArrivals.at(gate, 1))
            clock.advance(by: .seconds(3))
            gate.open()
            #expect(try await queue.result(of: first, as: Int.self) == 1)
            #expect(try await queue.result(of: second, as: Int.self) == 2)
        }
        let waits = try metrics.expectTimer(QueueMetricNames.waited, [("kind", "edit"), ("lane", "")]).values
        #expect(waits.sorted() == [0, 3_000_000_000], "the second waited for the only slot for 3 s")
    }

    /// Two processes work one file: one reads the gauges; when it stops, the other takes over
    /// at its next reading, and the first shows none.
    @Test func oneProcessAtATimeReportsTheGaugesFromTheDatabase() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("q.sqlite")
        let clock = ManualClock()
        let (metricsA, metricsB) = (TestMetrics(), TestMetrics())
        let a = try await Self.queue(path, clock, metricsA)
        let b = try await Self.queue(path, clock, metricsB)
        for queue in [a, b] { queue.register("work") { (input: Int, _: JobContext) -> Int in input } }
        // Jobs of a kind no process here runs: they stay available.
        let first = try await a.enqueue("report", 1)
        _ = try await a.enqueue("report", 2)
        _ = try await a.enqueue("report", 3, needs: [first])
        let available = [("kind", "report"), ("lane", ""), ("state", "available")]
        let waiting = [("kind", "report"), ("lane", ""), ("state", "waiting")]

        let workerA = Task { try await a.work(maxConcurrency: 1) }
        #expect(await eventually { Self.gauge(metricsA, QueueMetricNames.depth, available) == 2 })
        #expect(Self.gauge(metricsA, QueueMetricNames.depth, waiting) == 1)
        #expect(Self.gauge(metricsA, QueueMetricNames.workers) == 1)
        #expect(Self.gauge(metricsA, QueueMetricNames.oldestAge, [("kind", "report"), ("lane", "")]) == 0, "A enqueued them now")

        try await DurableQueueTests.working(b, maxConcurrency: 1) { () async throws in
            // Both read once and sleep until their next reading (7 s: the gauges' interval, which
            // no other sleeper of theirs has); B's reading found A's hold.
            #expect(await eventually { clock.sleeperDeadlines.filter { $0 == ManualClock.Instant(offset: .seconds(7)) }.count == 2 })
            #expect(Self.gauge(metricsB, QueueMetricNames.depth, available) == nil, "A holds the reading")
            workerA.cancel()
            try await workerA.value
            #expect(Self.gauge(metricsA, QueueMetricNames.depth, available) == nil, "A gave its gauges up as it stopped")
            clock.advance(by: .seconds(7))
            #expect(await eventually { Self.gauge(metricsB, QueueMetricNames.depth, available) == 2 })
            #expect(Self.gauge(metricsB, QueueMetricNames.workers) == 1, "A's beat went as it stopped")
            // B's clock began when B opened, a few milliseconds after A's: as two processes' clocks.
            let age = try #require(Self.gauge(metricsB, QueueMetricNames.oldestAge, [("kind", "report"), ("lane", "")]))
            #expect(abs(age - 7) < 1, "the oldest available job has waited 7 s: \(age)")
        }
    }

    @Test func withoutAFactoryNothingIsMeasuredAndNoGaugeIsRead() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(
            store: .sqlite(path: directory.file("q.sqlite")), options: .init(metrics: NOOPMetricsHandler.instance))
        #expect(!queue.metrics.reported)
        queue.register("work") { (input: Int, _: JobContext) -> Int in input }
        let id = try await queue.enqueue("work", 5)
        try await DurableQueueTests.working(queue) { () async throws in
            #expect(try await queue.result(of: id, as: Int.self) == 5)
        }
        let reader = try await queue.store.readGauges(reader: "other", now: queue.clock.now(), holdUntil: queue.clock.now() + 1)
        #expect(reader != nil, "no worker took the gauges' reading")
    }
}
