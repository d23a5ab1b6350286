import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// A worker outlives a store that fails for a while (the database went away, the file stayed
/// locked), and stops for a store it cannot use.
@Suite(.suiteTimeLimit)
struct StoreTroubleTests {
    /// An SQLite store whose turns fail while `failures` is above zero (a fake for the failure
    /// only: everything else is the real store).
    final class TroubledStore: QueueStore {
        let store: SQLiteQueueStore
        let failures: Locked<Int>
        let code: QueueError.Code
        /// Whether every heartbeat fails (the network to the store is down), and how many came.
        let heartbeatsFail = Locked(false)
        let heartbeats = Locked(0)
        /// When set, turns wait for it to open (a transaction stuck in the store).
        let stuck = Locked<Gate?>(nil)
        /// When set, the next heartbeat waits at `call` before it asks the store, and at
        /// `answer` before it returns the store's answer (an answer that comes late).
        let heartbeatHold = Locked<(call: Gate, answer: Gate)?>(nil)

        init(_ store: SQLiteQueueStore, failures: Int, code: QueueError.Code = .database) {
            self.store = store
            self.failures = Locked(failures)
            self.code = code
        }

        func finishAndClaim(
            _ ends: [AttemptEnd], kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64
        ) async throws -> StoreTurn {
            let fail = failures.withLock { left in
                defer { left -= 1 }
                return left > 0
            }
            if fail { throw QueueError(code: code, location: "troubled", message: "the server went away") }
            if let gate = stuck.withLock({ $0 }) { await gate.wait() }
            return try await store.finishAndClaim(ends, kinds: kinds, limit: limit, slots: slots, owner: owner, now: now, leaseUntil: leaseUntil)
        }

        func enqueue(_ jobs: [NewDurableJob], now: Int64) async throws -> [DurableJobID] { try await store.enqueue(jobs, now: now) }
        func claim(kinds: [String], limit: Int, slots: Int, owner: String, now: Int64, leaseUntil: Int64) async throws -> [ClaimedJob] {
            try await store.claim(kinds: kinds, limit: limit, slots: slots, owner: owner, now: now, leaseUntil: leaseUntil)
        }
        func finish(_ ends: [AttemptEnd], now: Int64) async throws -> [Bool] { try await store.finish(ends, now: now) }
        func heartbeat(owner: String, jobs: [DurableJobID], leaseUntil: Int64, now: Int64) async throws -> [DurableJobID] {
            heartbeats.withLock { $0 += 1 }
            if heartbeatsFail.withLock({ $0 }) { throw QueueError(code: .database, location: "troubled", message: "the network is down") }
            let hold = heartbeatHold.withLock { hold in
                defer { hold = nil }
                return hold
            }
            if let hold { await hold.call.wait() }
            let stop = try await store.heartbeat(owner: owner, jobs: jobs, leaseUntil: leaseUntil, now: now)
            if let hold { await hold.answer.wait() }
            return stop
        }
        func takeBack(now: Int64, poisonLimit: Int) async throws -> [StoreEnd] { try await store.takeBack(now: now, poisonLimit: poisonLimit) }
        func cancel(_ id: DurableJobID, now: Int64) async throws -> DurableJobState? { try await store.cancel(id, now: now) }
        func setLane(_ name: String, width: Int) async throws { try await store.setLane(name, width: width) }
        func job(_ id: DurableJobID) async throws -> DurableJob? { try await store.job(id) }
        func jobs(in states: [DurableJobState], after: DurableJobID?, limit: Int) async throws -> [DurableJob] {
            try await store.jobs(in: states, after: after, limit: limit)
        }
        func counts() async throws -> [DurableJobState: Int] { try await store.counts() }
        func nextRunTime(kinds: [String], after now: Int64) async throws -> Int64? { try await store.nextRunTime(kinds: kinds, after: now) }
        func prune(endedBefore: Int64, includingFailures: Bool) async throws -> Int {
            try await store.prune(endedBefore: endedBefore, includingFailures: includingFailures)
        }
        func close() async throws { try await store.close() }
    }

    @Test func aWorkerWaitsOutAStoreThatFailsAndGoesOn() async throws {
        let directory = try TemporaryDirectory()
        let store = TroubledStore(try SQLiteQueueStore(path: directory.file("q.sqlite")), failures: 3)
        let heard = Locked<[String]>([])
        var options = DurableQueue.Options(poll: .milliseconds(10))
        options.storeTrouble = { error in heard.withLock { $0.append(error.message) } }
        let queue = DurableQueue(store: store, options: options)
        queue.register("double") { (input: Int, _: JobContext) in input * 2 }
        let id = try await queue.enqueue("double", 21)
        try await DurableQueueTests.working(queue) { () async throws in
            #expect(try await queue.result(of: id, as: Int.self) == 42)
        }
        #expect(heard.withLock { $0 } == Array(repeating: "the server went away", count: 3))
    }

    @Test func aStoreItCannotUseEndsTheWork() async throws {
        let directory = try TemporaryDirectory()
        let store = TroubledStore(try SQLiteQueueStore(path: directory.file("q.sqlite")), failures: 1, code: .newerVersion)
        let queue = DurableQueue(store: store, options: DurableQueue.Options(poll: .milliseconds(10)))
        queue.register("double") { (input: Int, _: JobContext) in input * 2 }
        _ = try await queue.enqueue("double", 21)
        let error = await #expect(throws: QueueError.self) { try await queue.work() }
        #expect(error?.code == .newerVersion)
    }

    /// Heartbeats fail (the worker is cut off from the store): it keeps its job while its lease
    /// may still hold, and gives it up before the next heartbeat would come after the lease ran
    /// out, so that it never runs beside another worker's attempt. (Without the rule the body is
    /// never stopped, and the test reaches its time limit.) No end is recorded for the attempt
    /// given up: the job is taken back once its lease has run out, as after a crash, as attempt
    /// 2. (Released, it was handed out again at once as attempt 1 again: two runs of one
    /// attempt, which the crash harness caught after a PostgreSQL restart.)
    @Test func aWorkerThatCannotRenewItsLeasesGivesItsJobsUpBeforeTheyRunOut() async throws {
        let directory = try TemporaryDirectory()
        let store = TroubledStore(try SQLiteQueueStore(path: directory.file("q.sqlite")), failures: 0)
        store.heartbeatsFail.withLock { $0 = true }
        let clock = ManualClock()
        let queue = DurableQueue(
            store: store, options: .init(lease: .seconds(30), heartbeat: .seconds(10), poll: .seconds(3600), clock: clock))
        let started = Gate()
        let stopped = Gate()
        let starts = Locked(0)
        Self.registerHold(queue, started: started, stopped: stopped, starts: starts)
        let id = try await queue.enqueue("hold", 1)
        try await DurableQueueTests.working(queue) { () async throws in
            await started.wait()
            clock.advance(by: .seconds(10))
            #expect(await eventually { store.heartbeats.withLock { $0 } >= 1 })
            #expect(try await queue.job(id)?.state == .running, "at 10 s the lease (until 30 s) may still hold: the job is kept")
            clock.advance(by: .seconds(10))
            await stopped.wait()
            let given = try #require(try await queue.job(id))
            #expect(given.state == .running && given.attempts == 1 && starts.withLock { $0 } == 1, "its lease still holds: \(given)")
            // Past the lease (30 s), the next turn takes the job back, a crash, and starts attempt 2.
            clock.advance(by: .seconds(3600))
            #expect(await eventually { starts.withLock { $0 } == 2 })
            let job = try #require(try await queue.job(id))
            #expect(job.state == .running && job.attempts == 2 && job.crashes == 1, "\(job)")
        }
    }

    /// A turn stuck in the store: the heartbeat stops renewing once it has waited half a lease,
    /// and the running body is given up before its lease runs out.
    @Test func aTurnStuckInTheStoreStopsTheRenewalsAndTheWorkerGivesItsJobsUp() async throws {
        let directory = try TemporaryDirectory()
        let store = TroubledStore(try SQLiteQueueStore(path: directory.file("q.sqlite")), failures: 0)
        let clock = ManualClock()
        let queue = DurableQueue(
            store: store, options: .init(lease: .seconds(30), heartbeat: .seconds(10), poll: .seconds(3600), clock: clock))
        let started = Gate()
        let stopped = Gate()
        Self.registerHold(queue, started: started, stopped: stopped)
        let id = try await queue.enqueue("hold", 1)
        let stuck = Gate()
        try await DurableQueueTests.working(queue) { () async throws in
            // However this ends, the turn comes unstuck, so that the worker can stop.
            defer { stuck.open() }
            await started.wait()
            store.stuck.withLock { $0 = stuck }
            _ = try await queue.enqueue("hold", 2)
            #expect(await eventually { queue.workers.withLock { $0.values.contains { $0.state.withLock { $0.turnSince != nil } } } })
            // Each step waits for the heartbeat's next beat to be on the clock (due within a
            // heartbeat from now) before moving time: the stuck turn's own deadline (a lease
            // and a heartbeat away) and a renewal's (half a lease) sleep there too, so a count
            // of sleepers could let time move before the heartbeat slept again, and put its
            // beats a step behind.
            func nextBeat() async -> Bool {
                await eventually {
                    let now = clock.now
                    return clock.sleeperDeadlines.contains { $0 > now && $0 <= now.advanced(by: .seconds(10)) }
                }
            }
            #expect(await nextBeat())
            clock.advance(by: .seconds(10))
            #expect(await eventually { store.heartbeats.withLock { $0 } == 1 }, "at 10 s the turn had waited less than half a lease")
            for _ in 1...2 {
                #expect(await nextBeat())
                clock.advance(by: .seconds(10))
            }
            try #require(await eventually { stopped.isOpen }, "the running body was not given up")
            #expect(store.heartbeats.withLock { $0 } == 1, "no renewal while the turn is stuck")
            stuck.open()
            #expect(try await queue.job(id)?.attempts ?? 0 <= 1)
        }
    }

    /// A turn that the store never answers (a connection cut mid-statement has left one so) is
    /// abandoned after a lease and a heartbeat: the worker reports the trouble, and its next turn
    /// goes on.
    @Test func aTurnTheStoreNeverAnswersIsAbandonedAfterALeaseAndTheWorkerGoesOn() async throws {
        let directory = try TemporaryDirectory()
        let store = TroubledStore(try SQLiteQueueStore(path: directory.file("q.sqlite")), failures: 0)
        let clock = ManualClock()
        let heard = Locked<[String]>([])
        var options = DurableQueue.Options(lease: .seconds(30), heartbeat: .seconds(10), poll: .seconds(3600), clock: clock)
        options.storeTrouble = { error in heard.withLock { $0.append(error.message) } }
        let queue = DurableQueue(store: store, options: options)
        queue.register("double") { (input: Int, _: JobContext) in input * 2 }
        let id = try await queue.enqueue("double", 21)
        let stuck = Gate()
        store.stuck.withLock { $0 = stuck }
        try await DurableQueueTests.working(queue) { () async throws in
            // Opened last: the abandoned turn, answered after all, must not claim the job first.
            defer { stuck.open() }
            #expect(await eventually { queue.workers.withLock { $0.values.contains { $0.state.withLock { $0.turnSince != nil } } } })
            // The turn's deadline: a lease and a heartbeat from its start.
            #expect(await eventually { clock.sleeperDeadlines.contains(ManualClock.Instant(offset: .seconds(40))) })
            clock.advance(by: .seconds(40))
            #expect(await eventually { heard.withLock { $0.contains { $0.contains("no answer within 40.0 seconds") } } }, "\(heard.withLock { $0 })")
            store.stuck.withLock { $0 = nil }
            let doubled = Locked<Int?>(nil)
            let waiter = Task { let value = try await queue.result(of: id, as: Int.self); doubled.withLock { $0 = value } }
            // The pause after a failed turn, and the waits for the result, pass on the clock.
            #expect(await eventually {
                clock.advance(by: .milliseconds(200))
                return doubled.withLock { $0 } == 42
            })
            waiter.cancel()
        }
    }

    /// Registers `hold`: a body that runs until it is cancelled, opening `started` as it starts
    /// and `stopped` once cancelled.
    static func registerHold(_ queue: DurableQueue, started: Gate, stopped: Gate, starts: Locked<Int> = Locked(0)) {
        queue.register("hold") { (_: Int, _: JobContext) -> Int in
            starts.withLock { $0 += 1 }
            started.open()
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                stopped.open()
                throw error
            }
            return 0
        }
    }
}
