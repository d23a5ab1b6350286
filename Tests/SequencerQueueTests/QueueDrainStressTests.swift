import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// Drains at every moment of a worker's life, over and over: while it claims, while jobs
/// start, while they run, as their grace ends. Each drain must end its `work` (a drain that
/// waits for ever is a hang the watchdog reports with every thread's stack), leave no job
/// running, and lose or repeat none: the jobs left run on a new worker, each to exactly one
/// success.
///
/// `SEQUENCER_STRESS_ROUNDS` sets the number of rounds of 1,000 drains; without it, a few drains
/// run with the other suites (fewer under the thread sanitizer, where 100 took 168 s). CI runs the long form in a step of its own:
/// `SEQUENCER_STRESS_ROUNDS=3 swift test --skip-build --filter QueueDrainStressTests`.
@Suite struct QueueDrainStressTests {
    /// The drains run with the other suites.
    static var shortForm: Int {
        #if SEQUENCER_PTHREAD_LOCK
        return 10   // the sanitized build's flag
        #else
        return 100
        #endif
    }

    /// A job's body: counts its start and its success, and takes a few hundred microseconds,
    /// so that a short grace cancels some.
    static func register(_ queue: DurableQueue, _ succeeded: Locked<[Int: Int]>, _ running: Locked<Set<Int>>) {
        queue.register("work") { (input: Int, _: JobContext) -> Int in
            let first = running.withLock { $0.insert(input).inserted }
            #expect(first, "job \(input) ran twice at once")
            defer { _ = running.withLock { $0.remove(input) } }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...600)))
            succeeded.withLock { $0[input, default: 0] += 1 }
            return input
        }
    }

    @Test func drainsAtAnyMomentEndTheWorkAndLoseNoJob() async throws {
        let size = StressSize.current
        let drains = size.rounds.map { $0 * 1_000 } ?? Self.shortForm
        let watchdog = Watchdog("queue drains", stall: size.stall)
        defer { watchdog.stop() }
        let directory = try TemporaryDirectory()
        let jobs = 12
        for round in 0..<drains {
            let path = directory.file("q\(round % 4).sqlite")
            try? FileManager.default.removeItem(atPath: path)
            let succeeded = Locked<[Int: Int]>([:])
            let running = Locked<Set<Int>>([])
            let queue = try await DurableQueue(store: .sqlite(path: path), options: .init(poll: .milliseconds(5), claimAhead: 4))
            Self.register(queue, succeeded, running)
            _ = try await queue.enqueue(try (0..<jobs).map { try DurableQueue.Request("work", $0) })
            let working = Task { try await queue.work(maxConcurrency: 3) }
            // The drain comes after 0 to a few jobs ended, or at once, with a grace from none to
            // a little longer than a job.
            let after = Int.random(in: 0...4)
            while succeeded.withLock({ $0.count }) < after { await Task.yield() }
            queue.drain(within: .microseconds(Int.random(in: 0...800)))
            try await working.value
            watchdog.note("round \(round)")

            let states = try await queue.jobs([.waiting, .available, .running, .succeeded, .failed, .cancelled, .skipped], limit: 100)
            #expect(states.count == jobs)
            #expect(!states.contains { $0.state == .running }, "round \(round): a drained worker left a job running: \(states.filter { $0.state == .running })")
            #expect(states.allSatisfy { $0.state == .succeeded || $0.state == .available }, "round \(round): \(states.map(\.state))")
            #expect(states.filter { $0.state == .succeeded }.count == succeeded.withLock { $0.count })
            try await queue.close()

            // A new worker runs what was left, each job to one success in all.
            let next = try await DurableQueue(store: .sqlite(path: path), options: .init(poll: .milliseconds(5)))
            Self.register(next, succeeded, running)
            let finishing = Task { try await next.work(maxConcurrency: 3) }
            while succeeded.withLock({ $0.count }) < jobs { try await Task.sleep(for: .milliseconds(1)) }
            next.drain(within: .seconds(10))
            try await finishing.value
            #expect(succeeded.withLock { $0.values.allSatisfy { $0 == 1 } }, "round \(round): a job succeeded twice: \(succeeded.withLock { $0 })")
            #expect(try await next.jobs([.succeeded], limit: 100).count == jobs)
            try await next.close()
            watchdog.progress()
        }
    }
}
