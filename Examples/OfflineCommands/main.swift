// An app's offline edits in a durable queue (seeds/002: Apple News keeps its sync commands in a
// command queue saved to disk, loaded at launch, duplicates coalesced).
//
// The user edits notes while the device is offline. Each edit becomes a job of a
// `DurableQueue` on an SQLite file:
//
// - While offline, sending fails with a retryable error: the job is tried again later, and its
//   next attempt's time is kept in the file.
// - The same edit made twice while the first is still queued is one job (`key:`).
// - Each edit needs the one before it, and all run in the "sync" lane of width 1: they reach
//   the server in the order they were made, one at a time.
//
// Then the app is killed (SIGKILL, no chance to save anything), and launched again, online:
// the edits still in the file drain in order, each once. This program does all three steps: it
// runs itself offline, kills that process once its edits are queued, and runs itself online.
// It exits 0 only when the server received every edit once, in order.
//
// Run it with `swift run offline-commands-example`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Sequencer
import SequencerQueueSQLite

/// One edit of a note, sent to the server as it is.
struct Edit: Codable, Sendable, CustomStringConvertible {
    var action: String
    var note: Int
    var value: String

    /// Two edits with the same key are the same work.
    var key: String { "\(action) note \(note) '\(value)'" }
    var description: String { key }
}

/// What the user does while offline: two edits are made twice.
let edits = [
    Edit(action: "create", note: 1, value: "Groceries"),
    Edit(action: "append", note: 1, value: "milk"),
    Edit(action: "append", note: 1, value: "milk"),
    Edit(action: "rename", note: 1, value: "Shopping"),
    Edit(action: "create", note: 2, value: "Ideas"),
    Edit(action: "rename", note: 1, value: "Shopping"),
    Edit(action: "append", note: 2, value: "durable queues"),
]

struct Offline: Error, CustomStringConvertible {
    var description: String { "offline" }
}

/// Short leases, so that the edit the killed process held runs again within about 2 seconds.
let options = DurableQueue.Options(lease: .seconds(2), heartbeat: .milliseconds(500), poll: .milliseconds(100))

/// Opens the queue, with the "send" kind: offline, it throws; online, it appends the edit to
/// the server's log.
func openQueue(in directory: String, online: Bool) async throws -> DurableQueue {
    let queue = try await DurableQueue(store: .sqlite(path: directory + "/commands.sqlite"), options: options)
    let server = directory + "/server.log"
    queue.register("send") { (edit: Edit, _: JobContext) async throws -> String in
        guard online else {
            print("offline: cannot send \(edit) yet; it will be retried")
            throw Offline()
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: server))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\(edit)\n".utf8))
        try handle.close()
        print("online: sent \(edit)")
        return "ok"
    }
    try await queue.lane("sync", width: 1)
    return queue
}

/// The first launch: queues the edits while offline, and works until it is killed.
func runOffline(in directory: String) async throws {
    let queue = try await openQueue(in: directory, online: false)
    let worker = Task { try await queue.work(maxConcurrency: 2) }
    var last: DurableJobID?
    var first: DurableJobID?
    var queued = 0
    for edit in edits {
        let id = try await queue.enqueue(
            "send", edit, key: edit.key, needs: last.map { [$0] } ?? [], lane: "sync",
            retry: .exponential(attempts: 1_000, initial: .milliseconds(100), max: .seconds(1)))
        if let last, id <= last {
            print("queued again: \(edit): coalesced with the queued job \(id)")
        } else {
            print("queued \(edit) as job \(id)")
            first = first ?? id
            last = id
            queued += 1
        }
    }
    // The first edit has failed once, offline: its retry time is in the file.
    while let first, try await queue.job(first)?.errorCode == nil {
        try await Task.sleep(for: .milliseconds(20))
    }
    print("\(queued) edits queued while offline; kill me now")
    fflush(nil)  // the output is a pipe: without this, the lines would wait in a buffer
    try await worker.value
}

/// The second launch: online, the queued edits drain. Returns whether the server got each
/// edit once, in order.
func runOnline(in directory: String) async throws -> Bool {
    _ = FileManager.default.createFile(atPath: directory + "/server.log", contents: nil)
    let queue = try await openQueue(in: directory, online: true)
    let queued = try await queue.pending() + queue.running()
    print("relaunched online: \(queued.count) edits in the queue file")
    let worker = Task { try await queue.work(maxConcurrency: 2) }
    for job in queued.sorted(by: { $0.id < $1.id }) { _ = try await queue.result(of: job.id, as: String.self) }
    worker.cancel()
    try? await worker.value
    try await queue.close()
    let sent = try String(contentsOfFile: directory + "/server.log", encoding: .utf8).split(separator: "\n").map(String.init)
    var expected: [String] = []
    for edit in edits where !expected.contains(edit.key) { expected.append(edit.key) }
    guard sent == expected else {
        print("wrong: the server got \(sent), expected \(expected)")
        return false
    }
    print("drained \(sent.count) edits in order, each once (\(edits.count - sent.count) duplicates coalesced)")
    return true
}

/// Runs this program with `arguments`, its output in the returned pipe. A launch that still
/// runs after a minute is stuck: it is killed, and this program fails.
func launch(_ arguments: [String]) throws -> (Process, Pipe) {
    let process = Process()
    process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let pid = process.processIdentifier
    DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
        if process.isRunning {
            print("launch '\(arguments[0])' still runs after 60 s: killed")
            kill(pid, SIGKILL)
        }
    }
    return (process, output)
}

/// Passes the process's output through, line by line, until a line contains `marker`
/// (or the output ends); returns whether it did.
func relay(_ output: Pipe, until marker: String?) -> Bool {
    var buffer = ""
    while true {
        let data = output.fileHandleForReading.availableData
        if data.isEmpty { return false }
        buffer += String(decoding: data, as: UTF8.self)
        while let newline = buffer.firstIndex(of: "\n") {
            let line = String(buffer[..<newline])
            buffer = String(buffer[buffer.index(after: newline)...])
            print("  | \(line)")
            if let marker, line.contains(marker) { return true }
        }
    }
}

/// Launches this program offline, kills it once its edits are queued, and launches it online;
/// returns the online launch's exit status.
func launchTwice(in directory: String) throws -> Int32 {
    print("launch 1, offline:")
    let (offline, offlineOutput) = try launch(["offline", directory])
    guard relay(offlineOutput, until: "kill me now") else {
        print("the offline launch ended before it queued its edits")
        return 1
    }
    kill(offline.processIdentifier, SIGKILL)
    offline.waitUntilExit()
    guard offline.terminationReason == .uncaughtSignal else {
        print("launch 1 ended before it was killed (status \(offline.terminationStatus))")
        return 1
    }
    print("killed launch 1 with SIGKILL")
    print("launch 2, online (an edit the killed launch was sending runs again once its 2 s lease expires):")
    let (online, onlineOutput) = try launch(["online", directory])
    _ = relay(onlineOutput, until: nil)
    online.waitUntilExit()
    return online.terminationReason == .exit ? online.terminationStatus : 1
}

let arguments = CommandLine.arguments.dropFirst()
do {
    switch (arguments.first, arguments.dropFirst().first) {
    case ("offline", let directory?):
        try await runOffline(in: directory)
    case ("online", let directory?):
        exit(try await runOnline(in: directory) ? 0 : 1)
    default:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offline-commands-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let status = try launchTwice(in: directory)
        try? FileManager.default.removeItem(atPath: directory)
        exit(status)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
