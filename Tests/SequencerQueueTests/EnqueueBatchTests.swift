import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// `enqueue(_ requests:)`: many jobs in one transaction, all or none.
@Suite(.suiteTimeLimit)
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

/// `enqueue(_ batch:)`: a graph, with needs among its jobs, in one transaction.
@Suite(.suiteTimeLimit)
struct EnqueueGraphTests {
    @Test func aGraphIsEnqueuedWholeAndRunsInTheOrderOfItsNeeds() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")))
        let before = try await queue.enqueue("step", "before")
        var batch = DurableQueue.Batch()
        let fetch = try batch.add("step", "fetch", needsEnqueued: [before])
        let left = try batch.add("step", "left", needs: [fetch])
        let right = try batch.add("step", "right", needs: [fetch])
        let join = try batch.add("step", "join", needs: [left, right, left])
        let ids = try await queue.enqueue(batch)
        #expect(ids.count == 4 && batch.count == 4)
        #expect(try await queue.counts() == [.available: 1, .waiting: 4])
        let order = Locked<[String]>([])
        queue.register("step") { (name: String, _: JobContext) in
            order.withLock { $0.append(name) }
            return name
        }
        try await DurableQueueTests.working(queue) { () async throws in
            #expect(try await queue.result(of: ids[join.index], as: String.self) == "join")
        }
        let names = order.withLock { $0 }
        #expect(names.first == "before" && names[1] == "fetch" && names.last == "join", "\(names)")
        #expect(Set(names[2...3]) == ["left", "right"])
        #expect(try await queue.job(ids[right.index])?.state == .succeeded)
    }

    @Test func aRefusedJobAddsNoneOfTheGraphAndAKeyTakenByALiveJobIsNeededAsThatJob() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")))
        var refused = DurableQueue.Batch()
        let first = try refused.add("step", "a")
        try refused.add("step", "b", needs: [first], lane: "undeclared")
        let error = await #expect(throws: QueueError.self) { try await queue.enqueue(refused) }
        #expect(error?.code == .unknownLane)
        #expect(try await queue.counts().isEmpty)

        let live = try await queue.enqueue("step", "live", key: "config")
        var batch = DurableQueue.Batch()
        let config = try batch.add("step", "config again", key: "config")
        let user = try batch.add("step", "user", needs: [config])
        let ids = try await queue.enqueue(batch)
        #expect(ids[config.index] == live)
        // The dependent waits for the live job.
        #expect(try await queue.job(ids[user.index])?.state == .waiting)
        try await queue.cancel(live)
        #expect(try await queue.job(ids[user.index])?.state == .skipped)
    }

    @Test func aJobOfAnotherBatchOrANeedNotBeforeItIsRefused() async throws {
        var one = DurableQueue.Batch()
        var other = DurableQueue.Batch()
        let job = try one.add("step", "a")
        let error = #expect(throws: QueueError.self) { try other.add("step", "b", needs: [job]) }
        #expect(error?.code == .unknownNeed)

        // At the store, a position that does not come before the job.
        let directory = try TemporaryDirectory()
        let store = try SQLiteQueueStore(path: directory.file("q.sqlite"))
        let forward = [
            NewDurableJob(kind: "step", input: Data("1".utf8), needsInBatch: [1], runAt: 0),
            NewDurableJob(kind: "step", input: Data("2".utf8), runAt: 0),
        ]
        let refused = await #expect(throws: QueueError.self) { try await store.enqueue(forward, now: 0) }
        #expect(refused?.code == .unknownNeed)
        #expect(try await store.counts().isEmpty)
    }
}
