import Foundation
import Sequencer
import SequencerTestSupport
import Testing
@testable import SequencerQueue

/// Notices of other processes' commits (PostgreSQL's NOTIFY) wake a worker that wants jobs, and
/// not one that holds claimed jobs waiting for a slot.
@Suite(.timeLimit(.minutes(1)))
struct WakeUpTests {
    @Test func aWorkerHoldingJobsThatWaitForASlotIgnoresNotices() async throws {
        let directory = try TemporaryDirectory()
        let store = StoreTroubleTests.TroubledStore(try SQLiteQueueStore(path: directory.file("q.sqlite")), failures: 0)
        // Dropped unless the worker waits for one: a notice taken is one the worker has read.
        let (notices, feed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(0))
        store.notices.withLock { $0 = notices }
        // A clock that never moves: no poll, no heartbeat; only rings make turns.
        let queue = DurableQueue(store: store, options: .init(claimAhead: 3, clock: ManualClock()))
        let gate = Gate()
        let started = Locked(0)
        queue.register("hold") { (input: Int, _: JobContext) -> Int in
            started.withLock { $0 += 1 }
            await gate.wait()
            return input
        }
        let held = try await queue.enqueue(try (0..<4).map { try DurableQueue.Request("hold", $0) })
        try await DurableQueueTests.working(queue, maxConcurrency: 1) { () async throws in
            // One running, three claimed ahead waiting for the slot.
            _ = try await DurableQueueTests.job(queue, held[3]) { $0.state == .running }
            #expect(await eventually { started.withLock { $0 } == 1 })
            let rung = queue.doorbell.version
            // Each notice taken after the first means the one before it was handled.
            for _ in 0..<6 { #expect(await Self.deliver(feed)) }
            #expect(queue.doorbell.version == rung, "a notice rang while jobs waited for a slot")
            gate.open()
            for (index, id) in held.enumerated() { #expect(try await queue.result(of: id, as: Int.self) == index) }
            // Nothing held now: a notice rings for a turn.
            #expect(await eventually { queue.workers.withLock { $0.values.allSatisfy { $0.state.withLock { $0.byLocal.isEmpty } } } })
            let idle = queue.doorbell.version
            #expect(await Self.deliver(feed))
            #expect(await eventually { queue.doorbell.version != idle })
        }
    }

    /// Feeds one notice once the worker waits for it.
    static func deliver(_ feed: AsyncStream<Void>.Continuation) async -> Bool {
        await eventually {
            if case .enqueued = feed.yield(()) { return true }
            return false
        }
    }
}
