// A sync engine's command queue (seeds/002, the Apple News CloudKit posts).
//
// An app keeps one background queue for its whole life. The user's edits arrive as commands,
// whenever they happen: save an article, rename a folder, mark an article read. Each command
// becomes a job of one `JobQueue`:
//
// - Commands go to the server through a "network" lane of width 2.
// - A command that is sent again while an identical one is still pending or running shares
//   that one's request (`coalesce:` with the command's key), as `coalesceWithCommand` does.
//   Once it has ended, the same command runs again: it is new work.
// - A command that fails is retried with exponential backoff. The simulated server fails each
//   new request twice before it answers.
// - A command that needs another (rename a folder only after it was created) names it in
//   `needs`, even when the first has already finished.
//
// The queue keeps only what can still be asked for, so memory stays flat however long the app
// runs. Run it with `swift run sync-queue-example`.
import Sequencer

/// One user edit to send to the server.
enum Command: Sendable, CustomStringConvertible {
    case createFolder(String)
    case renameFolder(String, to: String)
    case saveArticle(Int)
    case markRead(Int)

    /// What identifies the work: two commands with the same key send the same request.
    var key: String {
        switch self {
        case .createFolder(let name): "create-folder:\(name)"
        case .renameFolder(let name, let newName): "rename-folder:\(name):\(newName)"
        case .saveArticle(let id): "save-article:\(id)"
        case .markRead(let id): "mark-read:\(id)"
        }
    }

    var description: String { key }
}

/// The server: each new request fails twice (a flaky connection), then succeeds.
actor Server {
    private var failuresLeft: [String: Int] = [:]
    private(set) var requests: [String] = []

    struct Unavailable: Error {}

    func send(_ command: Command) async throws -> String {
        requests.append(command.key)
        let left = failuresLeft[command.key, default: 2]
        failuresLeft[command.key] = left - 1
        try await Task.sleep(for: .milliseconds(20))
        if left > 0 { throw Unavailable() }
        failuresLeft[command.key] = nil  // the next request for it is new work
        return "ok \(command.key)"
    }
}

/// The app's sync engine: one queue, fed for the app's lifetime.
final class SyncEngine: Sendable {
    let queue = JobQueue(RunOptions(maxConcurrency: 4))
    let server = Server()
    private let sequence = Locked(0)

    init() { queue.lane("network", width: 2) }

    /// Queues a command; returns its handle. `after` names commands it must wait for.
    @discardableResult
    func enqueue(_ command: Command, after: [JobHandle<String>] = []) throws -> JobHandle<String> {
        let number = sequence.withLock { value -> Int in
            value += 1
            return value
        }
        return try queue.add(
            JobID("\(number) \(command.key)"), needs: after.map(\.id), lane: "network",
            retry: .exponential(attempts: 5, initial: .milliseconds(50)), coalesce: command.key
        ) { [server] context in
            if context.attempt > 1 { print("  retry \(context.attempt - 1) of \(command)") }
            return try await server.send(command)
        }
    }
}

@main
struct SyncQueueExample {
    static func main() async throws {
        let engine = SyncEngine()

        // The user creates a folder and saves an article; the first save is tapped twice.
        let folder = try engine.enqueue(.createFolder("Reading"))
        let save = try engine.enqueue(.saveArticle(7))
        let doubleTap = try engine.enqueue(.saveArticle(7))
        print(try await engine.queue.value(of: folder))

        // Later: the folder already exists, and the rename needs it anyway.
        try await Task.sleep(for: .milliseconds(100))
        let rename = try engine.enqueue(.renameFolder("Reading", to: "Later"), after: [folder])
        try engine.enqueue(.markRead(7), after: [save])
        print(try await engine.queue.value(of: rename))
        print(try await engine.queue.value(of: save), "/", try await engine.queue.value(of: doubleTap), "(one request)")

        // Much later the same article is saved again: new work, a new request.
        let saveAgain = try engine.enqueue(.saveArticle(7))
        print(try await engine.queue.value(of: saveAgain))

        // The app goes to the background: no more commands; wait for the queue to drain.
        engine.queue.close()
        let report = await engine.queue.report()
        let requests = await engine.server.requests
        print("\(report.status): \(report.count(.succeeded)) commands, \(requests.count) requests to the server")
    }
}
