#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import PostgresTestSupport
import SequencerPostgres
import SequencerQueue
import SequencerTestHelpers
import SequencerTestSupport
import Testing
import SequencerQueueSQLite

/// The harness's driver: starts and kills worker processes, and checks the store and ledger.
/// The store is an SQLite file or a PostgreSQL database (``StoreKind``).
final class CrashDriver {
    let directory: TemporaryDirectory
    /// What the workers are given: the SQLite file's path, or the database's URL.
    let location: String
    let store: any QueueStore
    /// A database this driver made on the shared server: dropped by ``finish()``.
    private let ownsDatabase: Bool
    var ledger: CrashLedger
    var random: SplitMix64
    private(set) var workers: [pid_t] = []
    private(set) var planned: [Int64: CrashLedger.Planned] = [:]
    private(set) var kills = 0
    private(set) var killsAfterEnd = 0
    /// Kills while another worker worked the same file.
    private(set) var killsBesideAnother = 0
    /// Kills as soon as a worker just started was ready, in its first claims.
    private(set) var killsAtReady = 0
    /// Of those, the kills that came before the end was committed.
    private(set) var killsBeforeCommit = 0
    private(set) var starts = 0
    private(set) var rounds = 0
    /// Workers that ended by themselves (the poison body).
    private(set) var died = 0
    private var problems: [String] = []

    /// A driver on a new store of `kind`, or on the database at `url` (a server of the test's own).
    init(seed: UInt64, kind: StoreKind = .sqlite, url: String? = nil) async throws {
        // Kept when a check fails: the ledger, the store and the workers' log are the report.
        directory = try TemporaryDirectory(prefix: "sequencer-crash", removedAtEnd: false)
        if let url {
            location = url
            ownsDatabase = false
        } else if kind == .postgres {
            location = try await TestServer.createDatabase()
            ownsDatabase = true
        } else {
            location = directory.file("queue.sqlite")
            ownsDatabase = false
        }
        store = location.hasPrefix("postgres") ? try await PostgresQueueStore(url: location) : try SQLiteQueueStore(path: location)
        ledger = CrashLedger(path: directory.file("ledger.txt"))
        random = SplitMix64(state: seed)
    }

    /// The `queue-crash-worker` executable, built beside the test bundle.
    static var binary: URL {
        let beside = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("queue-crash-worker")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return Bundle.main.bundleURL.appendingPathComponent("queue-crash-worker")
    }

    /// The store at `location`, for a ``DurableQueue`` (and for the driver's own reads).
    static func queueLocation(_ location: String) -> QueueStoreLocation {
        location.hasPrefix("postgres") ? .postgres(url: location) : .sqlite(path: location)
    }

    var queueLocation: QueueStoreLocation { Self.queueLocation(location) }

    func manifestPath(_ round: Int) -> String { directory.file("manifest-\(round).txt") }

    /// Enqueues a round of the workload (in a process of its own) and notes its plan.
    func seed(round: Int) async throws {
        try await run(["seed", location, String(round), manifestPath(round)])
        try readManifest(round)
        rounds = round + 1
    }

    func readManifest(_ round: Int) throws {
        for line in try String(contentsOfFile: manifestPath(round), encoding: .utf8).split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)  // job ID expect STATE needs ID...
            guard words.count >= 5, let id = Int64(words[1]) else { throw CrashHarnessError("bad manifest line '\(line)'") }
            planned[id] = CrashLedger.Planned(expect: words[3], needs: words[5...].compactMap { Int64($0) })
        }
    }

    // MARK: - Processes

    /// Starts a worker with `arguments`, its output appended to `workers.log`; `through` is a
    /// command that runs it (such as `ip netns exec NAME`), which must `exec` it.
    @discardableResult
    func spawn(_ arguments: [String], through: [String] = []) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let log = directory.file("workers.log")
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        closeInheritedDescriptors(&actions)
        let argv = (through + [Self.binary.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in environment { free(pointer) } }
        var pid = pid_t()
        let program = through.first ?? Self.binary.path
        let status = posix_spawn(&pid, program, &actions, nil, argv, environment)
        guard status == 0 else { throw CrashHarnessError("cannot start \(program): error \(status)") }
        return pid
    }

    /// Runs `arguments` to the end (a seed); throws unless it exits 0.
    func run(_ arguments: [String]) async throws {
        let status = try await reaped(try spawn(arguments))
        guard status == 0 else { throw CrashHarnessError("queue-crash-worker \(arguments) ended with status \(status); see \(directory.file("workers.log"))") }
    }

    /// Starts a worker (`work`, `work-poison`, ...) of the store at `location` (the driver's
    /// by default), run `through` a command (see ``spawn(_:through:)``).
    func start(_ command: String, location: String? = nil, through: [String] = []) throws {
        workers.append(try spawn([command, location ?? self.location, ledger.path], through: through))
        starts += 1
    }

    /// Notes the workers that ended by themselves, each with a `died` line in the ledger.
    func noteEnded() async throws {
        for pid in workers {
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { continue }
            append("died \(pid) \(status)")
            workers.removeAll { $0 == pid }
            died += 1
            // Only the poison body ends its own process, with SIGKILL.
            if status & 0x7f != SIGKILL { problems.append("worker \(pid) ended by itself with status \(status)") }
        }
    }

    /// Kills one worker: at a random moment 0 to 150 ms after it is ready; or (one time in six)
    /// as soon as it is ready (a worker just started: while it makes its first claims); or (one
    /// time in three) right after one of its bodies writes its end, while its worker records it.
    func killOne() async throws {
        guard let victim = workers.isEmpty ? nil : random.pick(workers) else { return }
        if workers.count > 1 { killsBesideAnother += 1 }
        try ledger.read()
        let mark = ledger.events.count
        let started = !ledger.ready.contains(Int(victim))  // in this round of kills
        let moment = random.int(0...5)
        let delay = Duration.milliseconds(random.int(0...150))
        try await until(seconds: 20, "worker \(victim) to be ready") { $0.ready.contains(Int(victim)) }
        let afterEnd = moment >= 4
        if afterEnd {
            // A victim with nothing to run is killed after a second anyway.
            try? await until(seconds: 1, nil) { $0.firstEnd(of: Int(victim), after: mark) != nil }
        } else if moment == 3 {
            if started { killsAtReady += 1 }
        } else {
            try await Task.sleep(for: delay)
        }
        try await terminate(victim)
        kills += 1
        if afterEnd, let (job, attempt) = ledger.firstEnd(of: Int(victim), after: mark) {
            killsAfterEnd += 1
            // The kill came before the end was committed: the job still runs that attempt.
            if let stored = try await store.job(DurableJobID(job)), stored.state == .running, stored.attempts == attempt {
                killsBeforeCommit += 1
            }
        }
    }

    /// Kills a worker and waits until it is gone; then writes `kill PID` in the ledger.
    func terminate(_ pid: pid_t) async throws {
        kill(pid, SIGKILL)
        _ = try await reaped(pid)
        append("kill \(pid)")
        workers.removeAll { $0 == pid }
    }

    /// Waits for a child to end; returns its wait status.
    func reaped(_ pid: pid_t) async throws -> Int32 {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno != EINTR) { return status }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    func stopAll() async throws {
        for pid in workers { try await terminate(pid) }
    }

    /// Works the queue with one worker, no more kills, until no job is live.
    func drain() async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while try await liveJobs() > 0 {
            guard ContinuousClock.now < deadline else {
                problems.append("the queue did not drain within 120 s of the last kill")
                break
            }
            try await noteEnded()
            if workers.isEmpty { try start("work") }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await stopAll()
    }

    /// Waits, reading the ledger as it grows, until `condition` holds; throws after `seconds`.
    func until(seconds: Int, _ what: String?, _ condition: (CrashLedger) -> Bool) async throws {
        // Counted as `eventually` counts (CI run 80: the second worker of a lease-loss test had
        // not written its first line after 30 s of the whole suite's load).
        var budget = PollBudget(.seconds(seconds), every: .milliseconds(1))
        while true {
            try ledger.read()
            if condition(ledger) { return }
            guard budget.remains else {
                throw CrashHarnessError("waited \(seconds) s for \(what ?? "an event"); the ledger ends:\n\(tail(ledger.path))\nthe workers' log ends:\n\(tail(directory.file("workers.log")))")
            }
            try await noteEnded()
            try Task.checkCancellation()
            await budget.poll()
        }
    }

    /// The last lines of the file at `path` (the ledger, or the workers' output), for an error.
    func tail(_ path: String, lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(none)"
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Appends a line of the driver's to the ledger, in one write.
    func append(_ words: String) {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        let line = "\(words) \(Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000)\n"
        let descriptor = open(ledger.path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else {
            problems.append("cannot open the ledger: errno \(errno)")
            return
        }
        var bytes = Array(line.utf8)
        _ = write(descriptor, &bytes, bytes.count)
        close(descriptor)
    }

    // MARK: - Checks

    func liveJobs() async throws -> Int {
        try await store.counts().filter { $0.key.isLive }.values.reduce(0, +)
    }

    /// `PRAGMA integrity_check` on the file the workers share (PostgreSQL has no such check).
    func expectIntact() {
        guard let store = store as? SQLiteQueueStore else { return }
        do {
            let found = try store.integrityProblems()
            if !found.isEmpty { problems.append("integrity_check after \(kills) kills: \(found)") }
        } catch {
            problems.append("integrity_check after \(kills) kills failed: \(error)")
        }
    }

    /// Every check, on a snapshot of the whole store taken when no job is live, and the ledger
    /// read after it. Records an issue per problem (the first 20).
    /// `final`: the workers are gone, and a live job is a problem.
    func check(_ when: String, final: Bool = false) async throws {
        var jobs: [DurableJob] = []
        while true {
            let page = try await store.jobs(in: DurableJobState.allCases, after: jobs.last?.id, limit: 1000)
            jobs += page
            if page.count < 1000 { break }
        }
        // A worker started meanwhile enqueued a hot job: check at the next quiet moment.
        guard final || !jobs.contains(where: { $0.state.isLive }) else { return }
        try ledger.read()
        expectIntact()
        problems += ledger.problems(jobs: jobs, planned: planned)
        // A worker's error, or a race that ThreadSanitizer saw in one (under `--sanitize=thread`).
        let log = directory.read("workers.log") ?? ""
        problems += log.split(separator: "\n").filter { $0.hasPrefix("queue-crash-worker:") || $0.contains("ThreadSanitizer") }
            .prefix(5).map { "workers.log: \($0)" }
        for problem in problems.prefix(20) {
            Issue.record("\(when), after \(kills) kills: \(problem) (files: \(directory.path))")
        }
        if problems.count > 20 { Issue.record("\(problems.count - 20) more problems (files: \(directory.path))") }
        if !problems.isEmpty { throw CrashHarnessError("the checks failed; see \(directory.path)") }
    }

    /// Notes a problem found by the test itself: the files are kept.
    func note(_ problem: String) { problems.append(problem) }

    /// Kills what is left, closes the store, and removes the files (and the database this
    /// driver made) unless a check failed.
    func finish() async {
        for pid in workers { kill(pid, SIGKILL) }
        try? await store.close()
        guard problems.isEmpty else { return }
        directory.remove()
        if ownsDatabase { await TestServer.dropDatabase(location) }
    }

    deinit {
        for pid in workers { kill(pid, SIGKILL) }
    }
}

struct CrashHarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
