import Foundation
import Sequencer
import SequencerTestSupport
import Testing
@testable import SequencerQueue

/// `enqueue(_ requests:)`: many jobs in one transaction, all or none.
@Suite(.timeLimit(.minutes(1)))
struct EnqueueBatchTests {
    @Test func aBatchAddsItsJobsInOrderAndCoalescesAKeyGivenTwice() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")))
        let first = try await queue.enqueue("double", 1)
        let ids = try await queue.enqueue([
            try DurableQueue.Request("double", 2, key: "two"),
            try DurableQueue.Request("double", 3, needs: [first], priority: .userInitiated),
            try DurableQueue.Request("double", 4, key: "two"),
        ])
        #expect(ids.count == 3)
        #expect(ids[0].rawValue > first.rawValue && ids[1].rawValue > ids[0].rawValue, "in order, after the jobs before")
        #expect(ids[2] == ids[0], "a key given twice in one batch is one job")
        #expect(try await queue.counts() == [.available: 2, .waiting: 1])
        #expect(try await queue.job(ids[1])?.priority == .userInitiated)
        queue.register("double") { (input: Int, _: JobContext) in input * 2 }
        try await DurableQueueTests.working(queue) { () async throws in
            #expect(try await queue.result(of: ids[1], as: Int.self) == 6)
            #expect(try await queue.result(of: ids[2], as: Int.self) == 4)
        }
    }

    @Test func aRefusedJobAddsNoneOfTheBatch() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")))
        let error = await #expect(throws: QueueError.self) {
            try await queue.enqueue([
                try DurableQueue.Request("send", 1),
                try DurableQueue.Request("send", 2, lane: "network"),
            ])
        }
        #expect(error?.code == .unknownLane)
        #expect(try await queue.counts().isEmpty, "the job before the refused one is not kept")
        #expect(try await queue.enqueue([]).isEmpty)
    }
}
