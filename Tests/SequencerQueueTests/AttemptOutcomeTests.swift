import Foundation
import Sequencer
import Testing
@testable import SequencerQueue

/// What a worker records for an attempt, from its local end: the pure mapping, called directly.
@Suite struct AttemptOutcomeTests {
    static let running = WorkLoop.Running(
        job: ClaimedJob(id: DurableJobID(7), kind: "k", input: Data(), attempt: 1, priority: .utility, lane: nil, timeout: nil, retry: .none),
        local: JobID("7"), claim: 1)

    /// A body that returned as work stopped (a drain's grace ended as it finished) is done: its
    /// result is recorded, not given back to run again.
    @Test func aBodyThatReturnedAsWorkStoppedSucceeds() {
        let output = Data("{\"value\":1}".utf8)
        let end = WorkLoop.outcome(of: Self.running, status: .cancelled, result: .success(output), stopping: true, now: 0)
        #expect(end == .succeeded(output))
    }

    /// One stopped before its body returned goes back, its attempt not counted.
    @Test func aBodyStoppedBeforeItReturnedIsReleased() {
        let end = WorkLoop.outcome(of: Self.running, status: .cancelled, result: nil, stopping: true, now: 0)
        #expect(end == .released)
        let failed = WorkLoop.outcome(of: Self.running, status: .cancelled, result: .failure(CancellationError()), stopping: true, now: 0)
        #expect(failed == .released)
    }

    /// A job cancelled through the queue ends cancelled.
    @Test func aJobCancelledThroughTheQueueEndsCancelled() {
        var running = Self.running
        running.cancelled = true
        #expect(WorkLoop.outcome(of: running, status: .cancelled, result: nil, stopping: false, now: 0) == .cancelled)
    }
}
