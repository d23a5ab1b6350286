import Dispatch
import Foundation
import Sequencer
import SequencerPostgres
import SequencerQueue
import SequencerQueueSQLite
import CoreMetrics
import Prometheus

/// Sequencer's side of `Scripts/bench-postgres-peers.py`: the five calls its `--sequencer-command`
/// makes, so that a `DurableQueue` is measured exactly as the peers are. An executable of its
/// own (`queue-peer`), so that the release build of `sequencer-bench` does not build postgres-nio.
///
///     queue-peer install URL
///     queue-peer pending-sql
///     queue-peer enqueue URL N
///     queue-peer enqueue-dag URL N
///     queue-peer produce URL RATE SECONDS
///     queue-peer worker URL
///     queue-peer produce-pairs URL RATE SECONDS
///     queue-peer pair-latencies URL
///
/// URL is a PostgreSQL URL (`postgres://`), or an SQLite file's path. A worker claims ahead
/// ``DurableQueue/Options/claimAhead`` jobs at least: `QUEUE_PEER_CLAIM_AHEAD=N` in the
/// environment sets it (the default otherwise, 16). `QUEUE_PEER_METRICS=prometheus` has every
/// command report its metrics to a Prometheus registry (as `sequencer worker --metrics` does,
/// unscraped); `QUEUE_PEER_METRICS=otel` reports metrics and spans through swift-otel, exported
/// over OTLP/HTTP (`otel-metrics` and `otel-traces`, one of them): their cost against none.
enum QueuePeer {
    static func run(_ arguments: [String]) async -> Int32 {
        var stopExporting: (@Sendable () async -> Void)?
        do {
            switch ProcessInfo.processInfo.environment["QUEUE_PEER_METRICS"] {
            case "prometheus": MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
            case "otel": stopExporting = try startOpenTelemetry(metrics: true, traces: true)
            case "otel-metrics": stopExporting = try startOpenTelemetry(metrics: true, traces: false)
            case "otel-traces": stopExporting = try startOpenTelemetry(metrics: false, traces: true)
            default: break
            }
        } catch {
            printError("queue-peer: \(error)")
            return 1
        }
        let status = await command(arguments)
        await stopExporting?()
        return status
    }

    static func command(_ arguments: [String]) async -> Int32 {
        do {
            switch (arguments.first, arguments.count) {
            case ("install", 2):
                let queue = try await DurableQueue(store: location(arguments[1]))
                try await queue.close()
            case ("pending-sql", 1):
                print(pendingSQL)
            case ("enqueue", 3):
                guard let count = Int(arguments[2]) else { throw PeerError("N must be a number, not '\(arguments[2])'") }
                try await enqueue(count, url: arguments[1])
            case ("enqueue-dag", 3):
                guard let count = Int(arguments[2]), count >= 0 else { throw PeerError("N must be a number, not '\(arguments[2])'") }
                try await enqueueGraph(count, url: arguments[1])
            case ("produce", 4):
                guard let rate = Double(arguments[2]), let seconds = Double(arguments[3]), rate > 0 else {
                    throw PeerError("RATE and SECONDS must be numbers")
                }
                try await produce(url: arguments[1], rate: rate, seconds: seconds)
            case ("worker", 2):
                try await work(url: arguments[1])
            case ("produce-pairs", 4):
                guard let rate = Double(arguments[2]), let seconds = Double(arguments[3]), rate > 0 else {
                    throw PeerError("RATE and SECONDS must be numbers")
                }
                try await producePairs(url: arguments[1], rate: rate, seconds: seconds)
            case ("pair-latencies", 2):
                try await pairLatencies(url: arguments[1])
            default:
                throw PeerError(
                    "usage: queue-peer install URL | pending-sql | enqueue URL N | enqueue-dag URL N | produce URL RATE SECONDS | worker URL"
                        + " | produce-pairs URL RATE SECONDS | pair-latencies URL")
            }
            return 0
        } catch {
            printError("queue-peer: \(error)")
            return 1
        }
    }

    /// The query that counts the jobs not yet ended.
    static let pendingSQL = "SELECT count(*) FROM sequencer.jobs WHERE state <= 2"

    static func location(_ url: String) -> QueueStoreLocation {
        url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") ? .postgres(url: url) : .sqlite(path: url)
    }

    static func enqueue(_ count: Int, url: String) async throws {
        let queue = try await DurableQueue(store: location(url))
        var left = count
        while left > 0 {
            let batch = min(1_000, left)
            try await queue.enqueue((0..<batch).map { _ in try DurableQueue.Request("noop", 0) })
            left -= batch
        }
        try await queue.close()
    }

    /// The DESIGN.md graph of `count` no-op jobs, by the rule of `sequencer-bench`'s `RandomDAG`
    /// (each job needs up to three earlier ones, drawn by a 64-bit LCG from seed 42), in
    /// batches of 1,000 (a ``DurableQueue/Batch`` each: a need in the same batch is one of its
    /// jobs, an earlier one an enqueued ID).
    static func enqueueGraph(_ count: Int, url: String) async throws {
        let queue = try await DurableQueue(store: location(url))
        var state: UInt64 = 42
        func draw() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        var ids: [DurableJobID] = []
        var batch = DurableQueue.Batch()
        var members: [DurableQueue.Batch.Job] = []
        for job in 0..<count {
            if batch.count == 1_000 {
                ids += try await queue.enqueue(batch)
                (batch, members) = (DurableQueue.Batch(), [])
            }
            var needs: [Int] = []
            for _ in 0..<min(Int(draw() % 4), job) {
                let need = Int(draw() % UInt64(job))
                if !needs.contains(need) { needs.append(need) }
            }
            let (inBatch, enqueued) = (needs.filter { $0 >= ids.count }, needs.filter { $0 < ids.count })
            members.append(try batch.add(
                "noop", 0, needs: inBatch.map { members[$0 - ids.count] }, needsEnqueued: enqueued.map { ids[$0] }))
        }
        ids += try await queue.enqueue(batch)
        try await queue.close()
    }

    static func produce(url: String, rate: Double, seconds: Double) async throws {
        let queue = try await DurableQueue(store: location(url))
        let (count, took) = try await paced(rate: rate, seconds: seconds) { _ in
            try await queue.enqueue("stamp", Date().timeIntervalSince1970)
        }
        print("produced \(count) \(took)")
        try await queue.close()
    }

    /// Calls `body` `rate * seconds` times, the n-th at n / `rate` seconds from the start (late
    /// calls at once, none skipped); returns how many, and the seconds they took.
    static func paced(rate: Double, seconds: Double, _ body: (Int) async throws -> Void) async throws -> (Int, Double) {
        let count = Int(rate * seconds)
        let start = ContinuousClock.now
        for index in 0..<count {
            let due = start + .seconds(Double(index) / rate)
            if ContinuousClock.now < due { try await Task.sleep(until: due, clock: .continuous) }
            try await body(index)
        }
        return (count, Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000)
    }

    static func work(url: String) async throws {
        var options = DurableQueue.Options()
        if let ahead = ProcessInfo.processInfo.environment["QUEUE_PEER_CLAIM_AHEAD"].flatMap({ Int($0) }) { options.claimAhead = ahead }
        let queue = try await DurableQueue(store: location(url), options: options)
        let latencies = Locked<[Double]>([])
        queue.register("noop") { (_: Int, _: JobContext) in 0 }
        registerPairs(queue)
        queue.register("stamp") { (enqueued: Double, _: JobContext) -> Int in
            let now = Date().timeIntervalSince1970
            latencies.withLock { $0.append(now - enqueued) }
            return 0
        }
        // Unbuffered: the bench waits for this line before it says go.
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        _ = readLine()
        let working = Task { try await queue.work() }
        signal(SIGTERM, SIG_IGN)
        let stop = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        stop.setEventHandler { working.cancel() }
        stop.resume()
        try await working.value
        stop.cancel()
        try await queue.close()
        let values = latencies.withLock { $0 }.map { String($0) }.joined(separator: ", ")
        print("latencies [\(values)]")
    }

    struct PeerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

exit(await QueuePeer.run(Array(CommandLine.arguments.dropFirst())))
