import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// How many jobs one worker's turn claims: short jobs share their transactions.
@Suite(.suiteTimeLimit)
struct ClaimBatchTests {
    @Test func oneTurnClaimsAheadOfTheRunningSlots() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")), options: .init(claimAhead: 20))
        let gate = Gate()
        queue.register("wait") { (input: Int, _: JobContext) -> Int in
            await gate.wait()
            return input
        }
        let jobs = queue.options.claimAhead + 1
        let ids = try await queue.enqueue(try (0..<jobs).map { try DurableQueue.Request("wait", $0) })
        try await DurableQueueTests.working(queue, maxConcurrency: 1) { () async throws in
            #expect(await BoundedArrivals.at(gate, 1))
            // The first body started after the turn's claim: every job claimed with it is running.
            #expect(try await queue.running(limit: jobs).count == jobs, "one slot and \(queue.options.claimAhead) ahead, all in one claim")
            gate.open()
            #expect(try await queue.result(of: ids[jobs - 1], as: Int.self) == jobs - 1)
        }
        #expect(try await queue.counts() == [.succeeded: jobs])
    }
}
