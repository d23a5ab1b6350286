import Foundation
import Sequencer
import SequencerQueue
import Synchronization
import SequencerQueueSQLite

/// `sequencer-bench --durable [--jobs N]`: a ``DurableQueue`` on a temporary SQLite file, with
/// `synchronous=NORMAL` and `FULL`: N no-op jobs enqueued (in batches of ``batch``, one
/// transaction each) then drained by one `work(maxConcurrency: cores)` (flat); the benchmark's
/// random DAG the same way; the latency of single enqueues (one transaction each); and the flat
/// jobs through the in-process `JobQueue`, the baseline.
enum DurableBench {
    /// Jobs per `enqueue(_:)` transaction.
    static let batch = 1_000
    /// Target of issue 12: flat jobs drained per second by one process.
    static let drainTarget = 20_000.0

    /// How many bodies ran.
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// One workload on one store: how long enqueueing and draining took.
    struct Figures {
        var jobs: Int
        var enqueue: Duration
        var drain: Duration
        var fileBytes: Int
    }

    static func run(jobs: Int) async -> Int32 {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let samples = min(jobs, 2_000)
        let dag = RandomDAG(count: jobs)
        print("Durable queue: SQLite (WAL) on a temporary file, N = \(jobs), \(cores) cores, work(maxConcurrency: \(cores))")
        print("enqueue: batches of \(batch) jobs, one transaction each; drain: from work() starting to every job recorded succeeded")
        print("")
        print(pad("workload", 10) + pad("synchronous", 13) + pad("enqueue jobs/s", 16, right: true)
            + pad("drain jobs/s", 14, right: true) + pad("total jobs/s", 14, right: true) + pad("file MiB", 10, right: true))
        var flatNormal: Figures?
        var latencies: [(SQLiteQueueStore.Synchronous, [Duration])] = []
        do {
            for synchronous in [SQLiteQueueStore.Synchronous.normal, .full] {
                let flat = try await measure(synchronous: synchronous, cores: cores) { queue in
                    try await enqueueFlat(jobs, into: queue)
                }
                print(row("flat", synchronous, flat))
                if synchronous == .normal { flatNormal = flat }
                let graph = try await measure(synchronous: synchronous, cores: cores) { queue in
                    try await enqueue(dag, into: queue)
                }
                print(row("dag", synchronous, graph))
                latencies.append((synchronous, try await enqueueLatencies(samples, synchronous: synchronous)))
            }
            let memory = try await inMemoryFlat(jobs, cores: cores)
            print("")
            for (synchronous, times) in latencies {
                let sorted = times.sorted()
                print("enqueue latency, \(synchronous.rawValue) (\(samples) single enqueues, one transaction each): "
                    + "p50 \(microseconds(sorted[sorted.count / 2])) µs, p99 \(microseconds(sorted[sorted.count * 99 / 100])) µs")
            }
            print("in-memory JobQueue, flat: \(rate(jobs, memory)) jobs/s (add then run to the end)")
            if let flat = flatNormal {
                let durable = seconds(flat.enqueue + flat.drain)
                print("durable (NORMAL) flat total time / in-memory: \(format(durable / seconds(memory), 1))×")
                let drained = Double(jobs) / seconds(flat.drain)
                print("target: flat drain ≥ \(Int(drainTarget)) jobs/s (NORMAL): \(Int(drained)) jobs/s, \(drained >= drainTarget ? "met" : "NOT met")")
            }
            return 0
        } catch {
            printError("sequencer-bench: \(error)")
            return 1
        }
    }

    /// Opens a new store, fills it with `fill` (timed), then drains it with one worker (timed).
    static func measure(
        synchronous: SQLiteQueueStore.Synchronous, cores: Int, fill: (DurableQueue) async throws -> Int
    ) async throws -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sequencer-durable-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("queue.sqlite").path
        let queue = DurableQueue(store: try SQLiteQueueStore(path: path, synchronous: synchronous))
        let ran = Counter()
        queue.register("noop") { (input: Int, _: JobContext) -> Int in
            ran.value.add(1, ordering: .relaxed)
            return input
        }
        let clock = ContinuousClock()
        var start = clock.now
        let jobs = try await fill(queue)
        let enqueue = start.duration(to: clock.now)
        start = clock.now
        let worker = Task { try await queue.work(maxConcurrency: cores) }
        // Every body ran, then every end is written (a flush or two later).
        while ran.value.load(ordering: .relaxed) < jobs { try await Task.sleep(for: .milliseconds(1)) }
        while try await queue.counts()[.succeeded] != jobs { try await Task.sleep(for: .milliseconds(1)) }
        let drain = start.duration(to: clock.now)
        worker.cancel()
        try await worker.value
        let counts = try await queue.counts()
        guard counts == [.succeeded: jobs] else { throw BenchFailure("after the drain the store holds \(counts), not \(jobs) succeeded") }
        try await queue.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return Figures(jobs: jobs, enqueue: enqueue, drain: drain, fileBytes: size)
    }

    /// N independent no-op jobs, in batches.
    static func enqueueFlat(_ jobs: Int, into queue: DurableQueue) async throws -> Int {
        for first in stride(from: 0, to: jobs, by: batch) {
            try await queue.enqueue((first..<min(jobs, first + batch)).map { try DurableQueue.Request("noop", $0) })
        }
        return jobs
    }

    /// The DAG's jobs, in batches: a batch ends before a job that needs one of its own jobs (a
    /// need names a job enqueued before the call).
    static func enqueue(_ dag: RandomDAG, into queue: DurableQueue) async throws -> Int {
        var ids: [DurableJobID] = []
        ids.reserveCapacity(dag.count)
        var requests: [DurableQueue.Request] = []
        for job in 0..<dag.count {
            let needs = dag.needs(of: job)
            if requests.count == batch || needs.contains(where: { Int($0) >= ids.count }) {
                ids += try await queue.enqueue(requests)
                requests = []
            }
            requests.append(try DurableQueue.Request("noop", job, needs: needs.map { ids[Int($0)] }))
        }
        ids += try await queue.enqueue(requests)
        return ids.count
    }

    /// The time of each of `count` single enqueues on a new store.
    static func enqueueLatencies(_ count: Int, synchronous: SQLiteQueueStore.Synchronous) async throws -> [Duration] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sequencer-durable-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = DurableQueue(store: try SQLiteQueueStore(path: directory.appendingPathComponent("queue.sqlite").path, synchronous: synchronous))
        let clock = ContinuousClock()
        var times: [Duration] = []
        for job in 0..<count {
            let start = clock.now
            try await queue.enqueue("noop", job)
            times.append(start.duration(to: clock.now))
        }
        try await queue.close()
        return times
    }

    /// The flat jobs through one in-process `JobQueue`.
    static func inMemoryFlat(_ jobs: Int, cores: Int) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        let queue = JobQueue(RunOptions(maxConcurrency: cores), keepFinished: 0)
        for job in 0..<jobs { try queue.add(JobID("j\(job)")) { _ in } }
        queue.close()
        let report = await queue.report()
        guard report.count(.succeeded) == jobs else { throw BenchFailure("JobQueue: \(report.count(.succeeded)) of \(jobs) succeeded") }
        return start.duration(to: clock.now)
    }

    private static func row(_ workload: String, _ synchronous: SQLiteQueueStore.Synchronous, _ figures: Figures) -> String {
        pad(workload, 10) + pad(synchronous.rawValue, 13)
            + pad(rate(figures.jobs, figures.enqueue), 16, right: true) + pad(rate(figures.jobs, figures.drain), 14, right: true)
            + pad(rate(figures.jobs, figures.enqueue + figures.drain), 14, right: true)
            + pad(format(Double(figures.fileBytes) / 1_048_576, 1), 10, right: true)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func rate(_ jobs: Int, _ duration: Duration) -> String { String(Int(Double(jobs) / seconds(duration))) }

    private static func microseconds(_ duration: Duration) -> String { format(seconds(duration) * 1e6, 0) }

    private static func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }
}
