import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// A heartbeat's answer is about the claims it asked about. A crash-harness run found a job
/// recorded "cancelled while it ran" that nobody cancelled: its attempt ended while a heartbeat
/// was under way, the store answered that the job was no longer held, and by the time the answer
/// came the worker had claimed the job's next attempt, which the answer then stopped.
@Suite(.suiteTimeLimit)
struct HeartbeatAnswerTests {
    @Test func aLateAnswerAboutAnEndedAttemptDoesNotStopTheNext() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let store = StoreTroubleTests.TroubledStore(try SQLiteQueueStore(path: directory.file("q.sqlite")), failures: 0)
        let options = DurableQueue.Options(lease: .seconds(3600), heartbeat: .seconds(10), clock: clock)
        let queue = DurableQueue(store: store, options: options)
        let (firstEnds, secondEnds) = (Gate(), Gate())
        struct Offline: Error {}
        queue.register("send") { (_: Int, context: JobContext) -> String in
            if context.durableJob?.attempt == 1 {
                await firstEnds.wait()
                throw Offline()
            }
            await secondEnds.wait()
            try Task.checkCancellation()
            return "sent"
        }
        let hold = (call: Gate(), answer: Gate())
        store.heartbeatHold.withLock { $0 = hold }
        let id = try await queue.enqueue("send", 1, retry: .fixed(attempts: 2, delay: .seconds(5)))
        try await DurableQueueTests.working(queue) { () async throws in
            // A heartbeat starts while attempt 1 runs, and asks about it once it has ended.
            await firstEnds.arrivals(atLeast: 1)
            try await Self.advance(clock, until: { hold.call.arrivals > 0 })
            firstEnds.open()
            _ = try await DurableQueueTests.job(queue, id) { $0.state == .available && $0.attempts == 1 }
            hold.call.open()
            await hold.answer.arrivals(atLeast: 1)
            // Attempt 2 is claimed and runs; then the answer about attempt 1 comes in, and the
            // next heartbeat shows it was dealt with.
            try await Self.advance(clock, until: { secondEnds.arrivals > 0 })
            hold.answer.open()
            let beats = store.heartbeats.withLock { $0 }
            try await Self.advance(clock, until: { store.heartbeats.withLock { $0 } > beats })
            secondEnds.open()
            #expect(try await queue.result(of: id, as: String.self) == "sent")
        }
        let job = try #require(try await queue.job(id))
        #expect(job.state == .succeeded && job.attempts == 2, "\(job)")
    }

    /// Moves the clock on a second at a time until `condition` holds. The leases (an hour) are
    /// far beyond the few seconds this takes, so no job is taken back meanwhile.
    static func advance(_ clock: ManualClock, until condition: () -> Bool) async throws {
        while !condition() {
            clock.advance(by: .seconds(1))
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
