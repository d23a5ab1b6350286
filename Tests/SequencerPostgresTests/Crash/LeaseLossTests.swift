#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import PostgresTestSupport
import SequencerQueue
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A worker that loses touch with the store past its lease (here: stopped with SIGSTOP, as a
/// network partition or a long pause would), then comes back: another worker has taken its job
/// meanwhile, and the late end of the first attempt must be refused, whatever it says. On an
/// SQLite file and on PostgreSQL (its fence: `WHERE attempt AND owner` in the ending UPDATE).
@Suite(.serialized, .suiteTimeLimit)
struct LeaseLossTests {
    /// `hold` jobs (see `queue-crash-worker`'s Workload.swift) wait for `release-N`, N the
    /// attempt, and return their process's ID.
    struct Hold: Codable, Sendable {
        var release: String
    }

    @Test(arguments: StoreKind.testable)
    func aWorkerStoppedPastItsLeaseHasItsLateEndRefused(_ kind: StoreKind) async throws {
        let driver = try await CrashDriver(seed: 1, kind: kind)
        do {
            try await Self.lateEndIsRefused(driver, startFirst: { try driver.start("work-quiet") }) { pid in
                try await Self.cut(pid, on: driver, { kill(pid, SIGSTOP) }, isCut: { Self.isStopped(pid) }, restore: { kill(pid, SIGCONT) })
            } restore: { pid in
                kill(pid, SIGCONT)
            }
        } catch {
            await driver.finish()
            throw error
        }
        await driver.finish()
    }

    /// The scenario: the first worker (started by `startFirst`) starts a `hold` job; `cut`
    /// parts it from the store; a second worker takes the job once the first one's lease (1 s)
    /// has expired; `restore` brings the first one back, and its body ends attempt 1 while the
    /// second worker's attempt runs: that late end is refused, and the second worker's success
    /// is the one recorded.
    ///
    /// The second worker's attempt is 2, or later when the first worker lost its lease already
    /// during a try of `cut` that found it in a transaction (on a loaded machine a try may stop
    /// it for longer than the lease): it then took the job back itself, and the second worker
    /// takes it from there, one crash more.
    static func lateEndIsRefused(
        _ driver: CrashDriver, startFirst: () throws -> Void, cut: (pid_t) async throws -> Void, restore: (pid_t) async throws -> Void
    ) async throws {
        let release = driver.directory.file("release")
        let queue = try await DurableQueue(store: driver.queueLocation, options: .init(poll: .milliseconds(20)))
        let held = try await queue.enqueue("hold", Hold(release: release))

        try startFirst()
        let first = driver.workers[0]
        try await driver.until(seconds: 30, "the first worker to start the job") { $0.started(held, attempt: 1, by: first) }
        try await cut(first)

        // The second worker takes the job once the first one's lease (1 s) has expired.
        try driver.start("work-quiet")
        let second = driver.workers[1]
        try await driver.until(seconds: 30, "the second worker to take the job") { $0.attempt(of: held, startedBy: second) != nil }
        let taken = try #require(driver.ledger.attempt(of: held, startedBy: second))

        // The first worker comes back, and its body (deaf to the cancellation its heartbeat
        // asks for) ends attempt 1 while attempt 2 runs.
        try await restore(first)
        try Data().write(to: URL(fileURLWithPath: "\(release)-1"))
        try await driver.until(seconds: 30, "the first worker's late end") { $0.ended(held, attempt: 1, by: first) }
        // Its worker reports that end at its next turn, in the same transaction as (or before)
        // the end of any job it starts afterwards: once it has run one, its late end was seen.
        var ranOneAfter = false
        for round in 0..<40 where !ranOneAfter {
            let next = try await queue.enqueue("hold", Hold(release: release + "-next\(round)"))
            try Data().write(to: URL(fileURLWithPath: "\(release)-next\(round)-1"))
            ranOneAfter = try await queue.result(of: next, as: Int.self) == Int(first)
        }
        #expect(ranOneAfter, "the first worker ran no job after its late end")
        let during = try #require(try await driver.store.job(held))
        #expect(during.state == .running && during.attempts == taken, "the late end of attempt 1 was recorded: \(during)")

        // The second worker's attempt ends: its success is the one recorded.
        try Data().write(to: URL(fileURLWithPath: "\(release)-\(taken)"))
        #expect(try await queue.result(of: held, as: Int.self) == Int(second))
        let ended = try #require(try await driver.store.job(held))
        #expect(ended.state == .succeeded && ended.attempts == taken && ended.crashes == taken - 1)
        try await driver.stopAll()
        try await queue.close()
    }

    /// Parts `pid` from the store with `cut` (once `isCut` holds) at a moment it holds no lock:
    /// not in SQLite's write transaction (a POSIX lock: a process stopped while it holds it would
    /// hold up every other process of the file, see the DocC article), and, on PostgreSQL, with
    /// no transaction open on the database (its row locks would hold up the other worker's
    /// reaper). Otherwise `restore`s it and tries again once it has had time to renew its
    /// leases (a heartbeat every 300 ms), so that a try stops it for less than its lease.
    static func cut(
        _ pid: pid_t, on driver: CrashDriver, _ cut: () async throws -> Void, isCut: () -> Bool,
        restore: () async throws -> Void
    ) async throws {
        for _ in 0..<200 {
            try await cut()
            _ = await eventually { isCut() }
            // A statement the server got before the cut still runs to its end: wait a moment
            // for it, so that only a transaction left open counts.
            let clock = ContinuousClock()
            let deadline = clock.now + .milliseconds(500)
            while clock.now < deadline, try await holdsLock(pid, driver) {
                try await Task.sleep(for: .milliseconds(20))
            }
            if try await !holdsLock(pid, driver) { return }
            try await restore()
            try await Task.sleep(for: .milliseconds(Int.random(in: 400...500)))
        }
        throw CrashHarnessError("process \(pid) held a lock of the store at each of 200 tries")
    }

    static func holdsLock(_ pid: pid_t, _ driver: CrashDriver) async throws -> Bool {
        guard driver.location.hasPrefix("postgres") else { return holdsWriteLock(pid) }
        // Only the parted worker can have a transaction open: the test's connections are idle.
        return try await TestServer.number(
            driver.location,
            "SELECT count(*)::bigint FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL"
        ) > 0
    }

    /// Whether `pid` is stopped (state T in /proc/PID/stat).
    static func isStopped(_ pid: pid_t) -> Bool {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return false }
        let text = String(decoding: stat, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return false }
        return text[text.index(after: close)...].drop { $0 == " " }.first == "T"
    }

    /// Whether `pid` holds a POSIX write lock (/proc/locks: `N: POSIX ADVISORY WRITE PID ...`).
    static func holdsWriteLock(_ pid: pid_t) -> Bool {
        let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
        return locks.split(separator: "\n").contains { line in
            let words = line.split(separator: " ")
            return words.count > 4 && words[1] == "POSIX" && words[3] == "WRITE" && words[4] == "\(pid)"
        }
    }
}

extension CrashLedger {
    func started(_ job: DurableJobID, attempt: Int, by pid: pid_t) -> Bool {
        events.contains(.start(job: job.rawValue, attempt: attempt, pid: Int(pid)))
    }

    /// The first attempt after the first that `pid` started of `job`.
    func attempt(of job: DurableJobID, startedBy pid: pid_t) -> Int? {
        events.lazy.compactMap { event -> Int? in
            if case .start(job.rawValue, let attempt, Int(pid)) = event, attempt > 1 { return attempt }
            return nil
        }.first
    }

    func ended(_ job: DurableJobID, attempt: Int, by pid: pid_t) -> Bool {
        events.contains { event in
            if case .end(job.rawValue, attempt, Int(pid), _) = event { return true }
            return false
        }
    }
}
