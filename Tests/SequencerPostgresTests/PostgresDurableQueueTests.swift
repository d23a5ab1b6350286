import Foundation
import PostgresTestSupport
import Sequencer
import SequencerPostgres
import SequencerQueue
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A durable queue end to end on PostgreSQL: `DurableQueue(store: .postgres(url:))`.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .suiteTimeLimit)
struct PostgresDurableQueueTests {
    struct Upload: Codable, Sendable, Equatable { var photo: Int }
    struct Receipt: Codable, Sendable, Equatable { var photo: Int; var url: String }

    @Test func jobsRunAfterTheirNeedsAndTheirResultsDecode() async throws {
        try await TestServer.withDatabase { url in
            let queue = try await DurableQueue(store: .postgres(url: url))
            let order = Locked<[Int]>([])
            queue.register("upload") { (input: Upload, _: JobContext) -> Receipt in
                order.withLock { $0.append(input.photo) }
                return Receipt(photo: input.photo, url: "https://example.invalid/\(input.photo)")
            }
            let album = try await queue.enqueue("upload", Upload(photo: 1))
            let photo = try await queue.enqueue("upload", Upload(photo: 2), needs: [album])
            let worker = Task { try await queue.work(maxConcurrency: 2) }
            #expect(try await queue.result(of: photo, as: Receipt.self) == Receipt(photo: 2, url: "https://example.invalid/2"))
            #expect(try await queue.result(of: album, as: Receipt.self).photo == 1)
            worker.cancel()
            try await worker.value
            #expect(order.withLock { $0 } == [1, 2])
            #expect(try await queue.counts() == [.succeeded: 2])
            try await queue.close()
        }
    }

    /// The worker's poll is an hour: only the notification of the other queue's enqueue can
    /// wake it in time.
    @Test func anIdleWorkerIsWokenByAnEnqueueInAnotherProcess() async throws {
        try await TestServer.withDatabase { url in
            let worker = try await DurableQueue(store: .postgres(url: url), options: .init(poll: .seconds(3600)))
            let ran = Locked(0)
            worker.register("echo") { (number: Int, _: JobContext) -> Int in
                ran.withLock { $0 += 1 }
                return number
            }
            let working = Task { try await worker.work(maxConcurrency: 2) }
            let producer = try await DurableQueue(store: .postgres(url: url), options: .init(poll: .milliseconds(20)))
            // Twice: the first may be claimed by the worker's first turn, the second comes while it is idle.
            for number in [1, 2] {
                let id = try await producer.enqueue("echo", number)
                #expect(try await producer.result(of: id, as: Int.self) == number)
            }
            working.cancel()
            try await working.value
            #expect(ran.withLock { $0 } == 2)
            try await worker.close()
            try await producer.close()
        }
    }

    /// The worker's heartbeat is an hour: only the notification of the cancel, made in
    /// another process's transaction, can reach the running body in time.
    @Test func aCancelInAnotherProcessReachesARunningBodyAtOnce() async throws {
        try await TestServer.withDatabase { url in
            let worker = try await DurableQueue(
                store: .postgres(url: url), options: .init(lease: .seconds(7200), heartbeat: .seconds(3600), poll: .milliseconds(50)))
            let started = Gate()
            worker.register("wait") { (_: Int, _: JobContext) -> Int in
                started.open()
                try await Task.sleep(for: .seconds(3600))
                return 0
            }
            let working = Task { try await worker.work(maxConcurrency: 1) }
            let other = try await DurableQueue(store: .postgres(url: url), options: .init(poll: .milliseconds(20)))
            let id = try await other.enqueue("wait", 1)
            await started.wait()
            try await other.cancel(id)
            let error = await #expect(throws: DurableJobError.self) { try await other.result(of: id, as: Int.self) }
            #expect(error?.job.state == .cancelled, "\(String(describing: error))")
            working.cancel()
            try await working.value
            try await worker.close()
            try await other.close()
        }
    }
}
