import Foundation
import Sequencer
import SequencerQueue

/// The latency from the end of a need to the start of its dependent, on a live queue:
///
///     queue-peer produce-pairs URL RATE SECONDS   # RATE pairs a second, each a need and its dependent
///     queue-peer pair-latencies URL               # once the workers ran them: p50, p99 and the maximum
///
/// A need's body returns the wall time as it ends; its dependent's body returns the wall time as
/// it starts; both run in `queue-peer worker` processes on this machine (one clock). So the
/// figure is what the queue adds between them: recording the need's end, the dependent made
/// available in the same transaction, a worker woken (LISTEN/NOTIFY on PostgreSQL) and its claim.
extension QueuePeer {
    static func producePairs(url: String, rate: Double, seconds: Double) async throws {
        let queue = try await DurableQueue(store: location(url))
        let (count, took) = try await paced(rate: rate, seconds: seconds) { pair in
            var batch = DurableQueue.Batch()
            let need = try batch.add("pair-need", pair, key: "need-\(pair)")
            try batch.add("pair-dependent", pair, key: "dependent-\(pair)", needs: [need])
            _ = try await queue.enqueue(batch)
        }
        print("produced \(count) pairs in \(took) s")
        try await queue.close()
    }

    /// Registers the pairs' kinds on a worker's queue.
    static func registerPairs(_ queue: DurableQueue) {
        queue.register("pair-need") { (_: Int, _: JobContext) -> Double in Date().timeIntervalSince1970 }
        queue.register("pair-dependent") { (_: Int, _: JobContext) -> Double in Date().timeIntervalSince1970 }
    }

    static func pairLatencies(url: String) async throws {
        let queue = try await DurableQueue(store: location(url))
        var ended: [String: Double] = [:]
        var started: [String: Double] = [:]
        var after: DurableJobID?
        while true {
            let page = try await queue.store.jobs(in: [.succeeded], after: after, limit: 1_000)
            guard let last = page.last else { break }
            after = last.id
            for job in page {
                guard let key = job.key else { continue }
                let time = try await queue.result(of: job.id, as: Double.self)
                if key.hasPrefix("need-") { ended[String(key.dropFirst(5))] = time }
                if key.hasPrefix("dependent-") { started[String(key.dropFirst(10))] = time }
            }
        }
        let latencies = started.compactMap { pair, start in ended[pair].map { (start - $0) * 1000 } }.sorted()
        guard !latencies.isEmpty else { throw PeerError("no pair has run") }
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int((p * Double(latencies.count)).rounded(.up)) - 1)] }
        print(String(format: "pairs %d, need end to dependent start: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                     latencies.count, percentile(0.5), percentile(0.99), latencies.last ?? 0))
        try await queue.close()
    }
}
