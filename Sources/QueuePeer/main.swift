import Dispatch
import Foundation
import Sequencer
import SequencerPostgres
import SequencerQueue

/// Sequencer's side of `Scripts/bench-postgres-peers.py`: the five calls its `--sequencer-command`
/// makes, so that a `DurableQueue` is measured exactly as the peers are. An executable of its
/// own (`queue-peer`), so that the release build of `sequencer-bench` does not build postgres-nio.
///
///     queue-peer install URL
///     queue-peer pending-sql
///     queue-peer enqueue URL N
///     queue-peer produce URL RATE SECONDS
///     queue-peer worker URL
///
/// URL is a PostgreSQL URL (`postgres://`), or an SQLite file's path.
enum QueuePeer {
    static func run(_ arguments: [String]) async -> Int32 {
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
            case ("produce", 4):
                guard let rate = Double(arguments[2]), let seconds = Double(arguments[3]), rate > 0 else {
                    throw PeerError("RATE and SECONDS must be numbers")
                }
                try await produce(url: arguments[1], rate: rate, seconds: seconds)
            case ("worker", 2):
                try await work(url: arguments[1])
            default:
                throw PeerError("usage: queue-peer install URL | pending-sql | enqueue URL N | produce URL RATE SECONDS | worker URL")
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

    static func produce(url: String, rate: Double, seconds: Double) async throws {
        let queue = try await DurableQueue(store: location(url))
        let count = Int(rate * seconds)
        let start = ContinuousClock.now
        for index in 0..<count {
            let due = start + .seconds(Double(index) / rate)
            if ContinuousClock.now < due { try await Task.sleep(until: due, clock: .continuous) }
            try await queue.enqueue("stamp", Date().timeIntervalSince1970)
        }
        print("produced \(count) \(Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000)")
        try await queue.close()
    }

    static func work(url: String) async throws {
        let queue = try await DurableQueue(store: location(url))
        let latencies = Locked<[Double]>([])
        queue.register("noop") { (_: Int, _: JobContext) in 0 }
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
