import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// A durable job's life beyond one attempt: cancelled while it runs, timed out, taken back
/// from a worker that died, released when work stops and run at the next launch.
@Suite(.suiteTimeLimit)
struct DurableQueueLifeTests {
    @Test func cancellingARunningJobCancelsItsBodyAndSkipsItsDependents() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")))
        let gate = Gate()
        let sawCancellation = Locked(false)
        queue.register("wait") { (_: Int, _: JobContext) -> Int in
            await gate.wait()
            // The cancel reaches the body's task a moment after `cancel` returns (the local
            // queue's scheduler delivers it): wait for it, up to far longer than it takes.
            do {
                try await Task.sleep(for: .seconds(20))
            } catch {
                sawCancellation.withLock { $0 = true }
                throw error
            }
            return 1
        }
        let running = try await queue.enqueue("wait", 1)
        let dependent = try await queue.enqueue("wait", 2, needs: [running])
        try await DurableQueueTests.working(queue) { () async throws in
            #expect(await BoundedArrivals.at(gate, 1))
            try await queue.cancel(running)
            gate.open()
            let error = await #expect(throws: DurableJobError.self) { try await queue.result(of: running, as: Int.self) }
            #expect(error?.job.state == .cancelled)
            #expect(try await queue.job(dependent)?.state == .skipped)
        }
        // The body's task sees the cancel on its own schedule: the job's state can be read first.
        #expect(await eventually { sawCancellation.withLock { $0 } })
    }

    @Test func anAttemptThatTimesOutFailsTheJob() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")), options: .init(clock: clock))
        queue.register("hang") { (_: Int, _: JobContext) -> Int in
            try await clock.sleep(for: .seconds(3600))
            return 1
        }
        let id = try await queue.enqueue("hang", 1, timeout: .seconds(2))
        try await DurableQueueTests.working(queue) { () async throws in
            _ = try await DurableQueueTests.job(queue, id) { $0.state == .running }
            // The body's sleep, and the timeout's.
            #expect(await BoundedSleepers.at(clock, until: .seconds(2)))
            clock.advance(by: .seconds(2))
            let error = await #expect(throws: DurableJobError.self) { try await queue.result(of: id, as: Int.self) }
            #expect(error?.job.errorCode == "timedOut")
        }
    }

    @Test func aJobWhoseWorkerDiedRunsAgainOnceItsLeaseExpires() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let options = DurableQueue.Options(lease: .seconds(30), heartbeat: .seconds(10), clock: clock)
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")), options: options)
        let attempts = Locked<[Int]>([])
        queue.register("job") { (_: Int, context: JobContext) -> String in
            attempts.withLock { $0.append(1) }
            return "done"
        }
        let id = try await queue.enqueue("job", 1)
        // A worker that claimed it and died: its lease runs to 30 s.
        let dead = try await queue.store.claim(kinds: ["job"], limit: 1, owner: "dead", now: queue.clock.now(), leaseUntil: queue.clock.now() + 30_000)
        #expect(dead.map(\.id) == [id])
        try await DurableQueueTests.working(queue) { () async throws in
            #expect(attempts.withLock { $0.isEmpty }, "not before the lease expires")
            clock.advance(by: .seconds(31))
            #expect(try await queue.result(of: id, as: String.self) == "done")
        }
        let job = try #require(try await queue.job(id))
        #expect(job.attempts == 2 && job.crashes == 1 && attempts.withLock { $0.count } == 1)
        // The dead worker's late end is refused.
        let late = try await queue.store.finish([AttemptEnd(id: id, attempt: 1, owner: "dead", outcome: .succeeded(Data()))], now: queue.clock.now())
        #expect(late == [false])
    }

    @Test func stoppingWorkReleasesRunningJobsAndTheNextLaunchRunsThem() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("q.sqlite")
        let first = try await DurableQueue(store: .sqlite(path: path))
        let started = Locked(false)
        first.register("edit") { (_: Int, _: JobContext) -> Int in
            started.withLock { $0 = true }
            // Runs until work stops: only cancellation ends it.
            try await Task.sleep(for: .seconds(3600))
            return 1
        }
        let id = try await first.enqueue("edit", 7)
        let worker = Task { try await first.work(maxConcurrency: 1) }
        #expect(await eventually { started.withLock { $0 } })
        worker.cancel()
        try await worker.value
        let released = try #require(try await first.job(id))
        #expect(released.state == .available && released.attempts == 0, "released, not counted")
        try await first.close()

        let relaunched = try await DurableQueue(store: .sqlite(path: path))
        relaunched.register("edit") { (input: Int, _: JobContext) in input * 6 }
        try await DurableQueueTests.working(relaunched) { () async throws in
            #expect(try await relaunched.result(of: id, as: Int.self) == 42)
        }
    }
}

/// Waits bounded by the test's time limit (cancellation), for gates and clocks.
enum BoundedArrivals {
    static func at(_ gate: Gate, _ count: Int) async -> Bool {
        await gate.arrivals(atLeast: count)
        return !Task.isCancelled
    }
}

enum BoundedSleepers {
    /// True once `clock` has a sleeper until `offset` from its start.
    static func at(_ clock: ManualClock, until offset: Duration) async -> Bool {
        while !clock.sleeperDeadlines.contains(ManualClock.Instant(offset: offset)) {
            if Task.isCancelled { return false }
            await Task.yield()
        }
        return true
    }
}
