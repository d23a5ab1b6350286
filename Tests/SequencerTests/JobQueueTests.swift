@testable import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A queue stays open, takes jobs from outside while it runs, and keeps only what can still be
/// asked for.
@Suite(.suiteTimeLimit)
struct JobQueueTests {
    @Test func jobsAddedOverTimeRunAndTheQueueEndsOnlyWhenClosed() async throws {
        let queue = JobQueue(RunOptions(maxConcurrency: 2))
        let first = try queue.add("first") { _ in 1 }
        #expect(try await queue.value(of: first) == 1)
        let second = try queue.add("second", needs: ["first"]) { ctx in try await ctx.value(of: first) + 1 }
        #expect(try await queue.value(of: second) == 2)
        // Everything ended, but the queue is open: its report waits.
        #expect(queue.snapshot.isFinished == false)
        let third = try queue.add("third", needs: ["second"]) { ctx in try await ctx.value(of: second) * 10 }
        queue.close()
        let report = try #require(await BoundedWait.value { await queue.report() })
        #expect(report.status == .succeeded)
        #expect(report.count(.succeeded) == 3)
        #expect(report.value(of: third) == 20)
        #expect(throws: WorkflowError.self) { try queue.add("late") { _ in } }
    }

    @Test func needsOnFinishedUnfinishedAndFailedJobs() async throws {
        let queue = JobQueue(RunOptions(maxConcurrency: 4))
        let gate = Gate()
        try queue.add("done") { _ in }
        _ = try await queue.value(of: JobHandle<Void>(id: "done", index: -1))
        try queue.add("slow") { _ in await gate.wait() }
        struct Boom: Error {}
        let failed = try queue.add("fails") { _ in throw Boom() }
        await #expect(throws: JobError.self) { try await queue.value(of: failed) }
        let both = try queue.add("both", needs: ["done", "slow"]) { _ in "ran" }
        let skipped = try queue.add("after-failure", needs: ["fails"]) { _ in "never" }
        // Skipped at once: its need had already failed.
        let error = await #expect(throws: JobError.self) { try await queue.value(of: skipped) }
        #expect(error?.code == .neededJobFailed)
        #expect(error?.path == ["fails", "after-failure"])
        #expect(queue.outcome(of: "both") == nil)  // not ended yet
        gate.open()
        #expect(try await queue.value(of: both) == "ran")
        #expect(queue.outcome(of: "both")?.status == .succeeded)
        #expect(throws: WorkflowError.self) { try queue.add("unknown-need", needs: ["nope"]) { _ in } }
        queue.close()
        let report = try #require(await BoundedWait.value { await queue.report() })
        #expect(report.status == .failed)
        #expect(report.count(.skipped) == 1)
    }

    @Test func anIDCanBeUsedAgainOnlyAfterItsJobEnded() async throws {
        let queue = JobQueue(RunOptions(maxConcurrency: 1))
        let gate = Gate()
        let first = try queue.add("sync") { _ in await gate.wait(); return 1 }
        let error = #expect(throws: WorkflowError.self) { try queue.add("sync") { _ in 2 } }
        #expect(error?.code == .duplicateJob)
        gate.open()
        #expect(try await queue.value(of: first) == 1)
        let again = try queue.add("sync") { _ in 2 }
        #expect(try await queue.value(of: again) == 2)
        queue.close()
        _ = try #require(await BoundedWait.value { await queue.report() })
    }

    @Test func aLaneOfWidthOneIsASerialQueueInAddOrder() async throws {
        let queue = JobQueue(RunOptions(maxConcurrency: 4))
        queue.lane("disk", width: 1)
        let order = Locked<[Int]>([])
        let meter = ConcurrencyMeter()
        for index in 0..<20 {
            try queue.add(JobID("write-\(index)"), lane: "disk") { _ in
                meter.enter()
                order.withLock { $0.append(index) }
                await Task.yield()
                meter.leave()
            }
        }
        queue.close()
        let report = try #require(await BoundedWait.value { await queue.report() })
        #expect(report.status == .succeeded)
        #expect(order.withLock { $0 } == Array(0..<20))
        #expect(meter.peak == 1)
        #expect(throws: WorkflowError.self) { try JobQueue().add("x", lane: "undeclared") { _ in } }
    }

    @Test func aHigherPriorityJobStartsFirstAndRaisesItsNeeds() async throws {
        let queue = JobQueue(RunOptions(maxConcurrency: 1))
        let gate = Gate()
        let order = Locked<[String]>([])
        try queue.add("blocker") { _ in await gate.wait() }
        try #require(await BoundedWait.arrivals(gate, atLeast: 1))
        for name in ["low-1", "low-2", "needed"] {
            try queue.add(JobID(name), priority: .background) { _ in order.withLock { $0.append(name) } }
        }
        try queue.add("urgent", needs: ["needed"], priority: .userInitiated) { _ in order.withLock { $0.append("urgent") } }
        gate.open()
        queue.close()
        _ = try #require(await BoundedWait.value { await queue.report() })
        // "needed" was raised to the urgent job's priority, so it overtook the other low jobs.
        #expect(order.withLock { $0 } == ["needed", "urgent", "low-1", "low-2"])
    }

    @Test func duplicateCommandsShareOneRunWhileTheyOverlap() async throws {
        let queue = JobQueue(RunOptions(maxConcurrency: 4))
        let gate = Gate()
        let calls = Locked(0)
        let first = try queue.add("fetch-7#1", coalesce: "fetch-7") { _ in
            calls.withLock { $0 += 1 }
            await gate.wait()
            return "v1"
        }
        try #require(await BoundedWait.arrivals(gate, atLeast: 1))
        let duplicate = try queue.add("fetch-7#2", coalesce: "fetch-7") { _ in
            calls.withLock { $0 += 1 }
            return "v2"
        }
        gate.open()
        #expect(try await queue.value(of: first) == "v1")
        #expect(try await queue.value(of: duplicate) == "v1")
        #expect(calls.withLock { $0 } == 1)
        // Nothing with the key is left: the next one runs the work again.
        let later = try queue.add("fetch-7#3", coalesce: "fetch-7") { _ in
            calls.withLock { $0 += 1 }
            return "v3"
        }
        #expect(try await queue.value(of: later) == "v3")
        #expect(calls.withLock { $0 } == 2)
        queue.close()
        _ = try #require(await BoundedWait.value { await queue.report() })
        #expect(queue.core.state.withLock { $0.scheduler.keysInUse.isEmpty })
    }

    @Test func cancellingAQueuedJobSkipsWhatNeedsIt() async throws {
        let queue = JobQueue(RunOptions(maxConcurrency: 1))
        let gate = Gate()
        try queue.add("blocker") { _ in await gate.wait() }
        let queued = try queue.add("queued") { _ in }
        let dependent = try queue.add("dependent", needs: ["queued"]) { _ in }
        queue.cancel("queued")
        await #expect(throws: JobError.self) { try await queue.value(of: queued) }
        let error = await #expect(throws: JobError.self) { try await queue.value(of: dependent) }
        #expect(error?.code == .neededJobFailed)
        gate.open()
        queue.close()
        let report = try #require(await BoundedWait.value { await queue.report() })
        #expect(report.outcome(of: "blocker")?.status == .succeeded)
        #expect(report.outcome(of: "queued")?.status == .cancelled)
    }

    @Test func cancellingTheQueueStopsEverythingAndClosesIt() async throws {
        let queue = JobQueue(RunOptions(maxConcurrency: 1))
        try queue.add("running") { _ in try await Task.sleep(for: .seconds(60)) }
        try queue.add("waiting") { _ in }
        queue.cancel()
        let report = try #require(await BoundedWait.value { await queue.report() })
        #expect(report.status == .cancelled)
        #expect(report.outcome(of: "waiting")?.status == .cancelled)
        #expect(throws: WorkflowError.self) { try queue.add("after") { _ in } }
    }

    @Test func finishedJobsAreForgottenBeyondKeepFinishedUnlessStillNeeded() async throws {
        let queue = JobQueue(RunOptions(maxConcurrency: 2), keepFinished: 5)
        let anchor = try queue.add("anchor") { _ in 42 }
        _ = try await queue.value(of: anchor)
        let gate = Gate()
        // A dependent that has not ended keeps its need, however many jobs end meanwhile.
        let reader = try queue.add("reader", needs: ["anchor"]) { ctx in
            await gate.wait()
            return try await ctx.value(of: anchor)
        }
        for index in 0..<200 {
            let handle = try queue.add(JobID("job-\(index)")) { _ in index }
            #expect(try await queue.value(of: handle) == index)
        }
        // A caller waiting for a job keeps it too: wait for the reader before it ends (it is
        // the oldest job but one, so once it ends nothing else would keep it).
        let readerValue = Task { try await queue.value(of: reader) }
        while queue.core.state.withLock({ $0.scheduler.watchers.isEmpty }) { await Task.yield() }
        gate.open()
        #expect(try await readerValue.value == 42)
        for index in 0..<20 {
            let handle = try queue.add(JobID("tail-\(index)")) { _ in index }
            _ = try await queue.value(of: handle)
        }
        let kept = queue.core.state.withLock { $0.scheduler.jobs.count }
        #expect(kept <= 5)
        #expect(queue.outcome(of: "anchor") == nil)
        // A forgotten job is no longer there to find by ID, cancel or need; its handle still
        // reads its result (kept by the handle), a handle made without the queue does not.
        #expect(try await queue.value(of: anchor) == 42)
        let forgotten = await #expect(throws: WorkflowError.self) {
            try await queue.value(of: JobHandle<Int>(id: anchor.id, index: anchor.index))
        }
        #expect(forgotten?.code == .unknownNeed)
        queue.cancel("anchor")
        let error = #expect(throws: WorkflowError.self) { try queue.add("late", needs: ["anchor"]) { _ in } }
        #expect(error?.code == .unknownNeed)
        queue.close()
        let report = try #require(await BoundedWait.value { await queue.report() })
        #expect(report.count(.succeeded) == 222)
        #expect(report.outcomes.count <= 5)
        #expect(report.outcomes.map(\.id).last == "tail-19")
        let state = queue.core.state.withLock { ($0.scheduler.failures.count, $0.scheduler.added.lookup.count) }
        #expect(state.0 == 0 && state.1 <= 5)
    }

    @Test func aHandleReadsItsOwnJobAfterTheQueueForgotItAndFreesTheResultWithIt() async throws {
        struct Offline: Error { let message: String }
        let queue = JobQueue(RunOptions(maxConcurrency: 1), keepFinished: 0)
        let failing = try queue.add("fails") { _ -> Int in throw Offline(message: "no network") }
        let first = try queue.add("sync") { _ in "first" }
        weak let ticket = first.ticket
        // The ID is used again once its job has ended: the old handle keeps reading the old job.
        _ = try await queue.value(of: first)
        let second = try queue.add("sync") { _ in "second" }
        #expect(try await queue.value(of: second) == "second")
        #expect(queue.core.state.withLock { $0.scheduler.jobs.count } == 0)
        #expect(try await queue.value(of: first) == "first")
        let error = await #expect(throws: JobError.self) { try await queue.value(of: failing) }
        #expect(error?.path == ["fails"])
        #expect((error?.underlying as? Offline)?.message == "no network")
        #expect(ticket != nil)
        _ = consume first
        #expect(ticket == nil)
        queue.close()
        _ = await queue.report()
    }

    /// Many tasks add jobs at once, each needing earlier jobs of its own task, while the queue
    /// runs them: every job runs once, after its needs.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func jobsAddedConcurrentlyFromManyTasks(seed: UInt64) async throws {
        let queue = JobQueue(RunOptions(maxConcurrency: 3), keepFinished: 10_000)
        let ended = Locked<Set<String>>([])
        let violations = Locked<[String]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var random = SplitMix64(state: seed &* 31 &+ UInt64(task))
                    for index in 0..<100 {
                        let name = "t\(task)-\(index)"
                        let needs = index == 0 ? [] : (0..<Int(random.next() % 3)).map { _ in
                            JobID("t\(task)-\(Int(random.next() % UInt64(index)))")
                        }
                        let needNames = Set(needs.map(\.description))
                        try queue.add(JobID(name), needs: Array(Set(needs))) { _ in
                            let missing = needNames.subtracting(ended.withLock { $0 })
                            if !missing.isEmpty { violations.withLock { $0.append("\(name) started before \(missing)") } }
                            await Task.yield()
                            ended.withLock { _ = $0.insert(name) }
                        }
                        if random.next() % 4 == 0 { await Task.yield() }
                    }
                }
            }
            try await group.waitForAll()
        }
        queue.close()
        let report = try #require(await BoundedWait.value { await queue.report() })
        #expect(report.status == .succeeded)
        #expect(report.count(.succeeded) == 800)
        #expect(ended.withLock { $0.count } == 800)
        #expect(violations.withLock { $0 }.isEmpty)
    }

    /// Seed 002: a sync engine's command queue, fed over time. A command sent again while the
    /// same one is pending shares its request; a failing request is retried with backoff; the
    /// same command after the first has ended is new work.
    @Test func aSyncEnginesCommandQueueCoalescesAndRetries() async throws {
        actor Server {
            var requests = 0
            struct Unavailable: Error {}
            func send() throws -> String {
                requests += 1
                if requests % 3 != 0 { throw Unavailable() }  // each request fails twice
                return "saved after \(requests) requests"
            }
        }
        let clock = ManualClock()
        let server = Server()
        let queue = JobQueue(RunOptions(maxConcurrency: 2, clock: clock))
        queue.lane("network", width: 1)
        func enqueue(_ number: Int) throws -> JobHandle<String> {
            try queue.add(
                JobID("save-7 #\(number)"), lane: "network",
                retry: .exponential(attempts: 5, initial: .seconds(1), jitter: 0), coalesce: "save-7"
            ) { _ in try await server.send() }
        }
        let first = try enqueue(1)
        let doubleTap = try enqueue(2)
        try #require(await BoundedWait.sleeper(clock, until: .seconds(1)))  // backoff after the first failure
        clock.advance(by: .seconds(1))
        try #require(await BoundedWait.sleeper(clock, until: .seconds(3)))  // then twice as long
        clock.advance(by: .seconds(2))
        #expect(try await queue.value(of: first) == "saved after 3 requests")
        #expect(try await queue.value(of: doubleTap) == "saved after 3 requests")
        #expect(queue.outcome(of: first.id)?.attempts == 3)
        #expect(queue.outcome(of: doubleTap.id)?.attempts == 0)  // it shared the first's request
        // Later, the same command again: new work.
        let later = try enqueue(3)
        try #require(await BoundedWait.sleeper(clock, until: .seconds(4)))
        clock.advance(by: .seconds(1))
        try #require(await BoundedWait.sleeper(clock, until: .seconds(6)))
        clock.advance(by: .seconds(2))
        #expect(try await queue.value(of: later) == "saved after 6 requests")
        queue.close()
        let report = try #require(await BoundedWait.value { await queue.report() })
        #expect(report.status == .succeeded)
        #expect(await server.requests == 6)
    }
}
