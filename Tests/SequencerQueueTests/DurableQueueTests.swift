import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// A durable queue end to end, on an SQLite file: bodies registered by kind, results across
/// queues opened on one file, cancellation, timeouts, retries and leases on a manual clock.
@Suite(.suiteTimeLimit)
struct DurableQueueTests {
    struct Upload: Codable, Sendable, Equatable { var photo: Int }
    struct Receipt: Codable, Sendable, Equatable { var photo: Int; var url: String }

    /// A queue on a new file, working in a task until `body` returns.
    static func working(
        _ queue: DurableQueue, maxConcurrency: Int = 2, _ body: () async throws -> Void
    ) async throws {
        let worker = Task { try await queue.work(maxConcurrency: maxConcurrency) }
        do {
            try await body()
        } catch {
            worker.cancel()
            _ = await worker.result
            throw error
        }
        worker.cancel()
        try await worker.value
    }

    /// The job once `condition` holds, woken by the queue's doorbell (rung when an end is
    /// recorded), not by polling.
    static func job(_ queue: DurableQueue, _ id: DurableJobID, until condition: (DurableJob) -> Bool) async throws -> DurableJob {
        while true {
            let version = queue.doorbell.version
            if let job = try await queue.job(id), condition(job) { return job }
            try await queue.doorbell.wait(after: version, upTo: .seconds(3600), clock: queue.clock)
        }
    }

    /// Worker A lacks what the job needs and says so: the job goes back, uncounted, and A
    /// claims no more of its kind for a while, so worker B runs it once.
    @Test func aBodyThatCannotRunHereGivesItsJobBackForAnotherWorker() async throws {
        let directory = try TemporaryDirectory()
        let a = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")), options: .init(poll: .milliseconds(10)))
        let refusals = Locked(0)
        let refused = Gate()
        a.register("render") { (_: Int, _: JobContext) -> Int in
            refusals.withLock { $0 += 1 }
            refused.open()
            throw CannotRunHere("no GPU on this machine")
        }
        try await Self.working(a) {
            let id = try await a.enqueue("render", 7)
            await refused.wait()
            let b = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")), options: .init(poll: .milliseconds(10)))
            b.register("render") { (frame: Int, _: JobContext) -> Int in frame * 2 }
            try await Self.working(b) {
                let doubled = try await b.result(of: id, as: Int.self)
                #expect(doubled == 14)
            }
            let job = try #require(try await a.job(id))
            #expect(job.state == .succeeded && job.attempts == 1, "A's attempt is not counted: \(job)")
            #expect(refusals.withLock { $0 } == 1, "A paused the kind instead of claiming it again")
        }
    }

    @Test func jobsRunAfterTheirNeedsAndTheirResultsDecode() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")))
        let order = Locked<[Int]>([])
        queue.register("upload") { (input: Upload, _: JobContext) -> Receipt in
            order.withLock { $0.append(input.photo) }
            return Receipt(photo: input.photo, url: "https://example.invalid/\(input.photo)")
        }
        let album = try await queue.enqueue("upload", Upload(photo: 1))
        let photo = try await queue.enqueue("upload", Upload(photo: 2), needs: [album])
        try await Self.working(queue) { () async throws in
            #expect(try await queue.result(of: photo, as: Receipt.self) == Receipt(photo: 2, url: "https://example.invalid/2"))
            #expect(try await queue.result(of: album, as: Receipt.self).photo == 1)
        }
        #expect(order.withLock { $0 } == [1, 2])
        #expect(try await queue.counts() == [.succeeded: 2])
        let kept = try await queue.succeeded()
        #expect(kept.map(\.id) == [album, photo] && kept.allSatisfy { $0.attempts == 1 })
    }

    @Test func aKeyOfALiveJobReturnsThatJob() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")))
        let runs = Locked(0)
        queue.register("sync") { (_: Int, _: JobContext) -> Int in runs.withLock { $0 += 1; return $0 } }
        let first = try await queue.enqueue("sync", 7, key: "sync-7")
        #expect(try await queue.enqueue("sync", 7, key: "sync-7") == first)
        try await Self.working(queue) { () async throws in
            #expect(try await queue.result(of: first, as: Int.self) == 1)
            let again = try await queue.enqueue("sync", 7, key: "sync-7")
            #expect(again != first)
            #expect(try await queue.result(of: again, as: Int.self) == 2)
        }
    }

    @Test func aKindThisProcessDoesNotKnowWaitsForOneThatDoes() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("q.sqlite")
        let producer = try await DurableQueue(store: .sqlite(path: path))
        producer.register("known") { (_: Int, _: JobContext) in "known" }
        let foreign = try await producer.enqueue("resize", 640)
        let known = try await producer.enqueue("known", 1)
        try await Self.working(producer) { () async throws in
            #expect(try await producer.result(of: known, as: String.self) == "known")
        }
        #expect(try await producer.job(foreign)?.state == .available, "left for a process that knows it, not failed")
        let other = try await DurableQueue(store: .sqlite(path: path))
        other.register("resize") { (width: Int, _: JobContext) in width / 2 }
        try await Self.working(other) { () async throws in
            #expect(try await other.result(of: foreign, as: Int.self) == 320)
        }
    }

    @Test func anInputThatNoLongerDecodesFailsForGoodWithAClearError() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")))
        let id = try await queue.enqueue("upload", "not an upload", retry: .fixed(attempts: 5, delay: .seconds(1)))
        queue.register("upload") { (input: Upload, _: JobContext) in input.photo }
        try await Self.working(queue) { () async throws in
            let error = await #expect(throws: DurableJobError.self) { try await queue.result(of: id, as: Int.self) }
            #expect(error?.job.state == .failed)
            #expect(error?.job.errorCode == "undecodableInput")
            #expect(error?.job.attempts == 1, "not retried: it would fail the same way")
            #expect(error?.description.contains("does not decode as Upload") == true)
        }
    }

    @Test func aFailingJobIsRetriedAtTheTimeKeptInTheStore() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")), options: .init(clock: clock))
        struct Offline: Error {}
        let attempts = Locked(0)
        let seen = Locked<[Int]>([])
        queue.register("send") { (_: Int, context: JobContext) -> String in
            seen.withLock { $0.append(context.durableJob?.attempt ?? 0) }
            let attempt = attempts.withLock { $0 += 1; return $0 }
            if attempt < 3 { throw Offline() }
            return "sent on attempt \(attempt)"
        }
        let id = try await queue.enqueue("send", 1, retry: .fixed(attempts: 3, delay: .seconds(5)))
        try await Self.working(queue) { () async throws in
            for attempt in 1...2 {
                // The retry's time is in the store before the clock reaches it.
                let job = try await Self.job(queue, id) { $0.state == .available && $0.attempts == attempt }
                #expect(job.error == "Offline()")
                #expect(job.runAt == queue.clock.now() + 5_000)
                clock.advance(by: .seconds(5))
            }
            #expect(try await queue.result(of: id, as: String.self) == "sent on attempt 3")
        }
        #expect(seen.withLock { $0 } == [1, 2, 3], "the body sees its durable attempt")
    }

    @Test func twoQueuesOnOneFileRunEachJobOnceBetweenThem() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("q.sqlite")
        let runs = Locked<[Int: [String]]>([:])
        func open(_ name: String) async throws -> DurableQueue {
            let queue = try await DurableQueue(store: .sqlite(path: path), options: .init(poll: .milliseconds(20)))
            queue.register("work") { (number: Int, _: JobContext) -> Int in
                runs.withLock { $0[number, default: []].append(name) }
                await Task.yield()
                return number
            }
            return queue
        }
        let first = try await open("first")
        let second = try await open("second")
        var ids: [DurableJobID] = []
        for number in 0..<200 { ids.append(try await first.enqueue("work", number, needs: number % 10 == 9 ? [ids[number - 5]] : [])) }
        let workers = [Task { try await first.work(maxConcurrency: 2) }, Task { try await second.work(maxConcurrency: 2) }]
        for (number, id) in ids.enumerated() {
            #expect(try await second.result(of: id, as: Int.self) == number)
        }
        for worker in workers { worker.cancel() }
        for worker in workers { try await worker.value }
        let ran = runs.withLock { $0 }
        #expect(ran.count == 200)
        #expect(ran.values.allSatisfy { $0.count == 1 }, "each job ran once")
        #expect(Set(ran.values.flatMap { $0 }) == ["first", "second"], "both processes took jobs")
        #expect(try await first.counts() == [.succeeded: 200])
    }
}
