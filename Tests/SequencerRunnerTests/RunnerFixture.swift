import Foundation
import Logging
import PostgresTestSupport
import Sequencer
import SequencerHistory
import SequencerJournal
import SequencerProcess
import SequencerQueue
import SequencerRunner
import SequencerTestHelpers
import SequencerWorkflowFile
import SequencerCache

/// A workflow file run in-process, here (through a journal) and through a queue (with a worker
/// in this process too): each in a directory of its own, so that neither sees the other's
/// outputs. What the runners say is kept.
final class RunnerFixture: Sendable {
    let directory: TemporaryDirectory
    /// The copy run here; its journal is beside it.
    let here: String
    /// The copy the queue's worker runs; the queue names its workflow `there`.
    let there: String
    let journal: SQLiteJournal
    let said = Locked<[String]>([])

    init(file text: String) throws {
        directory = try TemporaryDirectory()
        here = directory.file("here")
        there = directory.file("there")
        for copy in [here, there] {
            try FileManager.default.createDirectory(atPath: copy + "/.sequencer", withIntermediateDirectories: true)
            try text.write(toFile: copy + "/sequencer.yml", atomically: true, encoding: .utf8)
        }
        journal = try SQLiteJournal(path: here + "/.sequencer/journal.sqlite")
    }

    /// Where the runners' words go: kept, in order, whichever channel.
    var output: RunnerOutput {
        let said = said
        return RunnerOutput(
            progress: Console(lines: { line in said.withLock { $0.append(line) } }),
            diagnostics: { line in said.withLock { $0.append(line) } },
            results: { text in said.withLock { $0.append(text) } }, log: Logger(label: "sequencer-test"))
    }

    static func load(_ directory: String) throws -> WorkflowFile {
        try WorkflowFile.load(path: directory + "/sequencer.yml").expandingVariables()
    }

    /// Runs the file here, keeping going past failures, as `sequencer run --keep-going` does;
    /// returns the run's ID in the journal.
    func runHere() async throws -> (id: Int64, report: RunReport?) {
        let file = try Self.load(here)
        var settings = RunSettings()
        settings.keepGoing = true
        settings.jobs = 4
        var session = RunSession(file: file, settings: settings, output: output)
        try session.checkInputs(in: file)
        let recorder = try journal.beginRun(workflow: RunSession.key(of: file))
        session.recorder = recorder
        let report = try await session.run(control: RunControl(runner: ProcessRunner(terminationGrace: .seconds(2))))
        return (recorder.runID, report)
    }

    /// Submits the file to `store` `runs` times, one run after the other, each followed to its
    /// end while a worker of this process (four jobs at once) works the queue. Returns each
    /// run's ID, and how each follow ended (nil: every job succeeded).
    func runThrough(
        _ store: any RunStore, location: String, runs: Int, cache: (store: any CacheStore, namespaces: CacheNamespaces)? = nil
    ) async throws -> [(id: Int64, error: RunnerError?)] {
        let file = try Self.load(there)
        var options = DurableQueue.Options()
        options.poll = .milliseconds(20)
        let queue = DurableQueue(store: store, options: options)
        let scratch = directory.file("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let said = said
        let body = QueueShellBody(
            file: file, runner: ProcessRunner(terminationGrace: .seconds(2)), store: store, worker: "test-worker", scratch: scratch,
            cache: cache, warn: { line in said.withLock { $0.append(line) } })
        queue.register(QueueShellJob.kind(ofWorkflow: QueueShellJob.workflowName(of: file), lane: nil)) { (job: QueueShellJob, context: JobContext) -> Int in
            try await body.run(job, context: context)
        }
        let working = Task { try await queue.work(maxConcurrency: 4) }
        defer { working.cancel() }
        var ended: [(id: Int64, error: RunnerError?)] = []
        let session = QueueRunSession(location: location, store: store, json: false, output: output)
        for _ in 0..<runs {
            let run = try await session.submit(file)
            do {
                try await session.follow(run, cancelled: { false })
                ended.append((run.rawValue, nil))
            } catch let error as RunnerError {
                ended.append((run.rawValue, error))
            }
        }
        working.cancel()
        _ = try? await working.value
        return ended
    }
}

/// The queues the tests run against: an SQLite file always, and PostgreSQL when a server is
/// at hand (see ``TestServer``).
enum StoreKind: String, CaseIterable, CustomStringConvertible {
    case sqlite
    case postgres

    var description: String { rawValue }

    static let testable: [StoreKind] = TestServer.available ? allCases : [.sqlite]

    /// Runs `body` with a new, empty queue of this kind, and its location.
    func withStore(in directory: TemporaryDirectory, _ body: (any RunStore, String) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let location = directory.file("queue.sqlite")
            let store = try await HistoryLocation.queue(location).openQueue(create: true)
            defer { Task { try? await store.close() } }
            try await body(store, location)
        case .postgres:
            try await TestServer.withDatabase { url in
                let store = try await HistoryLocation.queue(url).openQueue(create: true)
                do {
                    try await body(store, HistoryLocation.queue(url).shown)
                } catch {
                    try? await store.close()
                    throw error
                }
                try await store.close()
            }
        }
    }
}
