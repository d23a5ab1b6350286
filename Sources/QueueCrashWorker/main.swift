// The process that the crash harness (Tests/SequencerQueueTests/CrashHarnessTests.swift) kills:
//
//     queue-crash-worker seed STORE ROUND MANIFEST    enqueue round ROUND of the workload
//     queue-crash-worker seed-poison STORE MANIFEST   enqueue a poison job and two dependents
//     queue-crash-worker work STORE LEDGER            work until killed
//     queue-crash-worker work-poison STORE LEDGER     work until killed, with a poison limit of 3
//     queue-crash-worker work-quiet STORE LEDGER      work until killed, enqueueing nothing itself
//     queue-crash-worker work-idle STORE LEDGER       as work-quiet, polling once an hour: only
//                                                     a notification (LISTEN) wakes it
//
// STORE is an SQLite file's path, or a PostgreSQL URL (`postgres://…`). A worker reports each
// failed turn of its store (the backoff's `storeTrouble`) as a `store trouble:` line on stderr.
//
// A worker uses short leases, so that a killed worker's jobs run again within about a second
// and a half, and appends what its bodies do to the ledger. `work` first enqueues a job under
// each hot key (coalesced while one is live), and fails a job as poison only after 1,000 ends
// of its process: random kills would otherwise fail ordinary jobs.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SequencerPostgres
import SequencerQueue
import SequencerQueueSQLite

let options = DurableQueue.Options(lease: .seconds(1), heartbeat: .milliseconds(300), poll: .milliseconds(50))

func main(_ arguments: [String]) async throws {
    switch arguments.first {
    case "seed" where arguments.count == 4:
        guard let round = Int(arguments[2]) else { throw WorkerError("the round '\(arguments[2])' is not a number") }
        let queue = try await DurableQueue(store: location(arguments[1]), options: options)
        try write(try await Workload.seed(queue, round: round), to: arguments[3])
        try await queue.close()
    case "seed-poison" where arguments.count == 3:
        let queue = try await DurableQueue(store: location(arguments[1]), options: options)
        try write(try await Workload.seedPoison(queue), to: arguments[2])
        try await queue.close()
    case "work" where arguments.count == 3, "work-poison" where arguments.count == 3, "work-quiet" where arguments.count == 3,
        "work-idle" where arguments.count == 3:
        var options = options
        // Random kills end workers often: only the poison run fails a job for that.
        options.poisonLimit = arguments[0] == "work-poison" ? 3 : 1_000
        if arguments[0] == "work-idle" { options.poll = .seconds(3600) }
        options.storeTrouble = { error in FileHandle.standardError.write(Data("store trouble: \(error)\n".utf8)) }
        let queue = try await DurableQueue(store: location(arguments[1]), options: options)
        let ledger = try Ledger(path: arguments[2])
        Workload.register(on: queue, ledger: ledger)
        if arguments[0] == "work" {
            for key in Workload.hotKeys { try await queue.enqueue("work", Work(), key: key) }
        }
        ledger.append("ready", String(getpid()))
        try await queue.work(maxConcurrency: 3)
    default:
        throw WorkerError(
            "usage: queue-crash-worker seed STORE ROUND MANIFEST | seed-poison STORE MANIFEST | work|work-poison|work-quiet|work-idle STORE LEDGER")
    }
}

/// The store at `text`: a PostgreSQL URL, or else an SQLite file's path.
func location(_ text: String) -> QueueStoreLocation {
    text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") ? .postgres(url: text) : .sqlite(path: text)
}

/// Writes the manifest's lines to `path`.
func write(_ lines: [String], to path: String) throws {
    try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
}

do {
    try await main(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("queue-crash-worker: \(error)\n".utf8))
    exit(2)
}
