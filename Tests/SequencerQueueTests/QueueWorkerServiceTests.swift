import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// `QueueWorker` as a swift-service-lifecycle service: a graceful shutdown drains it. It claims
/// no more, gives back what it claimed ahead, lets running jobs finish within the grace period,
/// and releases those still running when it is over.
@Suite(.suiteTimeLimit)
struct QueueWorkerServiceTests {
    /// A queue on a new file whose "slow" jobs wait at `gate`; with one slot, a second job is
    /// claimed ahead and waits in the worker.
    static func queue(_ directory: TemporaryDirectory, _ clock: ManualClock, gate: Gate) async throws -> DurableQueue {
        // No poll: a sleeper of the worker's until 30 s is the drain's end.
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")), options: .init(poll: .seconds(3600), clock: clock))
        queue.register("slow") { (input: Int, _: JobContext) -> Int in
            await gate.wait()
            return input
        }
        queue.register("sleep") { (input: Int, _: JobContext) -> Int in
            try await clock.sleep(for: .seconds(7200))
            return input
        }
        return queue
    }

    @Test func aGracefulShutdownLetsTheRunningJobFinishAndGivesBackTheOneClaimedAhead() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let gate = Gate()
        let queue = try await Self.queue(directory, clock, gate: gate)
        let running = try await queue.enqueue("slow", 1)
        let ahead = try await queue.enqueue("slow", 2)
        try await testGracefulShutdown { trigger in
            let service = Task { try await QueueWorker(queue: queue, maxConcurrency: 1, gracePeriod: .seconds(30)).run() }
            #expect(await BoundedArrivals.at(gate, 1))
            #expect(try await queue.job(ahead)?.state == .running, "claimed ahead, waiting in the worker")
            trigger.triggerGracefulShutdown()
            let given = try await DurableQueueTests.job(queue, ahead) { $0.state == .available }
            #expect(given.attempts == 0, "given back unstarted: the attempt does not count")
            let late = try await queue.enqueue("slow", 3)
            gate.open()
            try await service.value
            #expect(try await queue.job(running)?.state == .succeeded, "it finished within the grace period")
            #expect(try await queue.job(late)?.state == .available, "nothing claimed once draining")
            #expect(try await queue.job(ahead)?.state == .available)
        }
    }

    @Test func aJobStillRunningWhenTheGracePeriodEndsIsReleased() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let queue = try await Self.queue(directory, clock, gate: Gate())
        let id = try await queue.enqueue("sleep", 1)
        try await testGracefulShutdown { trigger in
            let service = Task { try await QueueWorker(queue: queue, maxConcurrency: 2, gracePeriod: .seconds(30)).run() }
            _ = try await DurableQueueTests.job(queue, id) { $0.state == .running }
            #expect(await BoundedSleepers.at(clock, until: .seconds(7200)), "the body sleeps")
            trigger.triggerGracefulShutdown()
            // The worker waits for the body, or the grace period's end (30 s).
            #expect(await BoundedSleepers.at(clock, until: .seconds(30)))
            #expect(try await queue.job(id)?.state == .running)
            clock.advance(by: .seconds(30))
            try await service.value
            let released = try #require(try await queue.job(id))
            #expect(released.state == .available && released.attempts == 0, "released, to run again at once elsewhere: \(released)")
        }
    }

    /// A body that ignores its cancellation past the local queue's grace period (2 s) is given
    /// up on, but may still return a value: the worker waits for it, and records its job as
    /// done rather than releasing it to run again elsewhere (the drain stress test, on a busy
    /// machine, saw three jobs done twice so).
    @Test func aBodyGivenUpOnAsTheWorkerStopsIsRecordedAsItReturnsNotRunAgain() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let gate = Gate()
        let queue = try await Self.queue(directory, clock, gate: gate)
        let id = try await queue.enqueue("slow", 1)
        let working = Task { try await queue.work(maxConcurrency: 1) }
        #expect(await BoundedArrivals.at(gate, 1))
        queue.drain(within: .zero)
        // The body, cancelled, waits at the gate: after the grace period the local queue ends
        // its job without it.
        #expect(await BoundedSleepers.at(clock, until: .seconds(2)))
        clock.advance(by: .seconds(2))
        let worker = try #require(queue.workers.withLock { $0.values.first })
        #expect(await eventually { worker.state.withLock { $0.stopping && $0.byLocal.isEmpty } })
        #expect(try await queue.job(id)?.state == .running, "held while its body may return")
        gate.open()
        try await working.value
        let job = try #require(try await queue.job(id))
        #expect(job.state == .succeeded && job.attempts == 1, "\(job)")
    }

    /// `DurableQueue.drain(within:)` drains every `work` of the queue, as a graceful shutdown
    /// does, and a `work` started after it claims nothing and returns.
    @Test func drainingAQueueDrainsItsWorkNowAndLater() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let gate = Gate()
        let queue = try await Self.queue(directory, clock, gate: gate)
        let running = try await queue.enqueue("slow", 1)
        let working = Task { try await queue.work(maxConcurrency: 1) }
        #expect(await BoundedArrivals.at(gate, 1))
        queue.drain(within: .seconds(30))
        queue.drain(within: .seconds(1))
        let late = try await queue.enqueue("slow", 2)
        gate.open()
        try await working.value
        #expect(try await queue.job(running)?.state == .succeeded, "it finished within the drain")
        #expect(try await queue.job(late)?.state == .available, "nothing claimed once draining")
        // A `work` that starts after the drain claims nothing and returns.
        try await queue.work(maxConcurrency: 1)
        #expect(try await queue.job(late)?.state == .available)
    }

    /// In a `ServiceGroup` beside another service, the group's graceful shutdown ends the worker
    /// once its jobs are done, and the group's run returns.
    @Test func aServiceGroupRunsTheWorkerAndShutsItDown() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let gate = Gate()
        let queue = try await Self.queue(directory, clock, gate: gate)
        let id = try await queue.enqueue("slow", 7)
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: QueueWorker(queue: queue, maxConcurrency: 1))], logger: .init(label: "test")))
        let running = Task { try await group.run() }
        #expect(await BoundedArrivals.at(gate, 1))
        await group.triggerGracefulShutdown()
        gate.open()
        try await running.value
        #expect(try await queue.job(id)?.state == .succeeded)
    }
}
