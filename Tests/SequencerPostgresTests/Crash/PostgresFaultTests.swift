#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import PostgresTestSupport
import SequencerQueue
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Faults of the PostgreSQL server and of the network, each on a server of the test's own
/// (``OwnServer``), with `queue-crash-worker` processes and the crash harness's ledger.
@Suite(.serialized, .enabled(if: TestServer.available, TestServer.skipReason), .suiteTimeLimit)
struct PostgresFaultTests {
    /// A `work` job's input (see `queue-crash-worker`'s Workload.swift).
    struct Work: Codable, Sendable {
        var sleep = 0
        var failures = 0
        var doomed = false
    }

    /// `pg_ctl restart -m fast` while two workers are mid-run: their connections are cut, their
    /// turns fail and are tried again after a pause (reported through `storeTrouble`), and the
    /// run completes with every job ended as planned, none run twice at once.
    @Test func workersReconnectAfterARestartAndTheRunCompletes() async throws {
        try await Self.withServer(seed: 3) { server, driver in
            try await driver.seed(round: 0)
            try driver.start("work")
            try driver.start("work")
            try await driver.until(seconds: 60, "20 bodies to end") { $0.endCount >= 20 }
            let mark = driver.ledger.events.count
            let started = "SELECT (extract(epoch FROM pg_postmaster_start_time()) * 1000)::bigint"
            let startedBefore = try await TestServer.number(server.url, started)
            try await server.restart()
            // It stalled (a turn's ROLLBACK on a closing connection was never answered, while
            // the heartbeat renewed its leases) in about a third of the runs, until the store
            // sent ROLLBACK only on connections that survive the error.
            // 150 s, not 60: in one loaded full run the workers made no progress for 60 s after
            // the restart without reporting a failed turn (waiting in the connection pool, whose
            // reconnection backs off up to a minute; under investigation).
            try await Self.waitForTheEnd(driver, seconds: 150)
            try await driver.stopAll()
            try await driver.check("after the restart", final: true)
            #expect(driver.died == 0)
            #expect(driver.ledger.events[mark...].contains { if case .start = $0 { true } else { false } }, "no body started after the restart")
            // Every connection was cut. A worker whose turn was under way reports it; one that was
            // between turns may not (its pool opens a new connection), so none may have.
            #expect(try await TestServer.number(server.url, started) != startedBefore, "the server did not restart")
            let trouble = (driver.directory.read("workers.log") ?? "").split(separator: "\n").filter { $0.hasPrefix("store trouble:") }
            print("restart mid-run: \(driver.ledger.endCount) bodies ended, \(trouble.count) failed turns reported, e.g. \(trouble.first ?? "-")")
        }
    }

    /// A worker idle through a restart (its poll is an hour) listens again, and is woken by the
    /// notification of an enqueue made after the restart.
    @Test func anIdleWorkerListensAgainAfterARestart() async throws {
        try await Self.withServer(seed: 4) { server, driver in
            try driver.start("work-idle")
            let worker = driver.workers[0]
            try await driver.until(seconds: 30, "the worker to be ready") { $0.ready.contains(Int(worker)) }
            let queue = try await DurableQueue(store: driver.queueLocation)
            let before = try await queue.enqueue("work", Work())
            try await queue.close()
            try await driver.until(seconds: 20, "the worker to start a job (its notification)") { $0.started(before, attempt: 1, by: worker) }

            try await server.restart()
            // Its listening connection is a new one on the new server.
            let listening = "SELECT count(*)::bigint FROM pg_stat_activity WHERE query LIKE 'LISTEN %'"
            let deadline = ContinuousClock.now + .seconds(30)
            while (try? await TestServer.number(server.url, listening)) ?? 0 == 0 {
                try #require(ContinuousClock.now < deadline, "the worker did not listen again within 30 s of the restart")
                try await Task.sleep(for: .milliseconds(20))
            }
            let late = try await DurableQueue(store: driver.queueLocation)
            let after = try await late.enqueue("work", Work())
            try await late.close()
            try await driver.until(seconds: 20, "the idle worker to start the job enqueued after the restart") { $0.started(after, attempt: 1, by: worker) }
            try await driver.stopAll()
        }
    }

    /// A worker in another network namespace reaches the server over a veth pair; the link
    /// goes down past its lease (a real partition: its packets are lost, its process runs on),
    /// another worker takes its job, and once the link is back its late end is refused.
    @Test(.enabled(if: NetworkNamespace.possible, NetworkNamespace.skipReason))
    func aWorkerCutOffByTheNetworkPastItsLeaseHasItsLateEndRefused() async throws {
        let space = try await NetworkNamespace.create()
        do {
            try await Self.withServer(seed: 5, listen: space.hostAddress) { server, driver in
                let remote = server.url(host: space.hostAddress)
                try await LeaseLossTests.lateEndIsRefused(driver, startFirst: { try driver.start("work-quiet", location: remote, through: space.exec) }) { pid in
                    try await LeaseLossTests.cut(pid, on: driver, { try await space.set(up: false) }, isCut: { true }, restore: { try await space.set(up: true) })
                } restore: { _ in
                    try await space.set(up: true)
                }
            }
        } catch {
            await space.remove()
            throw error
        }
        await space.remove()
    }

    /// Waits until no job is live, noting the workers that end; a read that fails (the driver's
    /// connections were cut too) is tried again.
    static func waitForTheEnd(_ driver: CrashDriver, seconds: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let live: String
            do {
                let count = try await driver.liveJobs()
                if count == 0 { return }
                live = "\(count) live jobs"
            } catch {
                live = "\(error)"
            }
            guard ContinuousClock.now < deadline else {
                driver.note("the run did not complete within \(seconds) s of the restart: \(live)")
                throw CrashHarnessError("the run did not complete within \(seconds) s of the restart: \(live) (files: \(driver.directory.path))")
            }
            try await driver.noteEnded()
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Runs `body` with a server of its own (also listening on `listen`) and a crash driver on
    /// it; then stops both (the driver's files are kept when a check failed).
    static func withServer(seed: UInt64, listen: String? = nil, _ body: (OwnServer, CrashDriver) async throws -> Void) async throws {
        let server = try await OwnServer.start(listen: listen)
        do {
            let driver = try await CrashDriver(seed: seed, url: server.url)
            do {
                try await body(server, driver)
            } catch {
                await driver.finish()
                throw error
            }
            await driver.finish()
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

extension CrashLedger {
    /// How many bodies have ended.
    var endCount: Int {
        events.count { if case .end = $0 { true } else { false } }
    }
}
