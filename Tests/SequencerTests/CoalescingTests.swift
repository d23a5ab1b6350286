import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

private struct Boom: Error, Equatable {}

/// Jobs with the same coalescing key run one body and share its result.
@Suite(.suiteTimeLimit)
struct CoalescingTests {
    @Test(arguments: 1...4, 0..<5)
    func jobsSharingAKeyRunOneBodyAndShareItsValue(maxConcurrency: Int, repetition: Int) async throws {
        let calls = LockedValue(0)
        var workflow = Workflow()
        var handles: [JobHandle<Int>] = []
        for index in 0..<5 {
            handles.append(try workflow.add(JobID("fetch-\(index)"), coalesce: "config") { _ in
                calls.withLock { $0 += 1 }
                return 42
            })
        }
        let all = handles
        try workflow.add("use", needs: all.map(\.id)) { ctx in
            for handle in all {
                let value = try await ctx.value(of: handle)
                #expect(value == 42)
            }
        }
        let report = try await workflow.start(RunOptions(maxConcurrency: maxConcurrency)).report()
        #expect(calls.value == 1, "one body for the key")
        #expect(report.status == .succeeded)
        for handle in handles { #expect(report.value(of: handle) == 42) }
        let attempts = handles.compactMap { report.outcome(of: $0.id)?.attempts }
        #expect(attempts.sorted() == [0, 0, 0, 0, 1], "the leader made one attempt, the others none")
        #expect(report.outcome(of: "use")?.status == .succeeded)
    }

    @Test(arguments: 0..<10)
    func aJoinerWaitsForTheLeaderWithoutAWorker(repetition: Int) async throws {
        let (gate, arrived) = (Gate(), Gate())
        arrived.open()
        let calls = LockedValue(0)
        var workflow = Workflow()
        let leader = try workflow.add("leader", coalesce: "k") { _ in
            calls.withLock { $0 += 1 }
            await arrived.wait()
            await gate.wait()
            return "shared"
        }
        let joiner = try workflow.add("joiner", coalesce: "k") { _ in
            calls.withLock { $0 += 1 }
            return "own"
        }
        // With two workers, the joiner does not hold the second: this job runs meanwhile.
        try workflow.add("other") { _ in gate.open() }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        let report = try #require(await BoundedWait.report(run))
        #expect(calls.value == 1)
        #expect(report.value(of: leader) == "shared")
        #expect(report.value(of: joiner) == "shared")
        #expect(report.status == .succeeded)
        let joined = try #require(report.outcome(of: "joiner"))
        #expect(joined.attempts == 0)
        #expect(joined.endedAt == report.outcome(of: "leader")?.endedAt)
    }

    /// A job with the key that becomes ready after the leader ended gets its result at once.
    @Test(arguments: 0..<10)
    func aLateJobWithTheKeyGetsTheFinishedResult(repetition: Int) async throws {
        let calls = LockedValue(0)
        var workflow = Workflow()
        try workflow.add("first", coalesce: "k") { _ in calls.withLock { $0 += 1 }; return 7 }
        try workflow.add("gap", needs: ["first"]) { _ in }
        let late = try workflow.add("late", needs: ["gap"], coalesce: "k") { _ in calls.withLock { $0 += 1 }; return 8 }
        let report = try await workflow.start().report()
        #expect(calls.value == 1)
        #expect(report.value(of: late) == 7)
        let outcome = try #require(report.outcome(of: "late"))
        #expect(outcome.status == .succeeded && outcome.attempts == 0)
        #expect(try #require(outcome.startedAt) >= (report.outcome(of: "gap")?.endedAt ?? .zero), "it still waited for its needs")
    }

    @Test(arguments: 0..<10)
    func aFailureIsSharedAndTracedToTheLeader(repetition: Int) async throws {
        let calls = LockedValue(0)
        var workflow = Workflow()
        for index in 0..<3 {
            try workflow.add(JobID("j\(index)"), coalesce: "k") { _ in
                calls.withLock { $0 += 1 }
                throw Boom()
            }
        }
        let report = try await workflow.start(RunOptions(maxConcurrency: 3, keepGoing: true)).report()
        #expect(calls.value == 1)
        #expect(report.count(.failed) == 3)
        for outcome in report.outcomes {
            #expect(outcome.error?.underlying is Boom)
            #expect(outcome.error?.origin == report.outcomes.first { $0.attempts == 1 }?.id)
        }
    }

    @Test func jobsSharingAKeyMustReturnTheSameType() throws {
        var workflow = Workflow()
        try workflow.add("a", coalesce: "k") { _ in 1 }
        try workflow.add("b", coalesce: "k") { _ in "one" }
        #expect(throws: WorkflowError.self) { try workflow.validate() }
        do {
            try workflow.validate()
        } catch let error as WorkflowError {
            #expect(error.code == .invalidOption)
            #expect(error.message.contains("'a'") && error.message.contains("'b'") && error.message.contains("'k'"))
        }
    }

    @Test func anEmptyKeyIsRejected() throws {
        var workflow = Workflow()
        let error = #expect(throws: WorkflowError.self) { try workflow.add("a", coalesce: "") { _ in } }
        #expect(error?.code == .invalidOption)
        #expect(workflow.count == 0)
    }

    /// Cancelling a job that joined another cancels only it; the leader goes on.
    @Test(arguments: 0..<10)
    func cancellingAJoinerLeavesTheLeaderRunning(repetition: Int) async throws {
        let (gate, arrived) = (Gate(), Gate())
        arrived.open()
        var workflow = Workflow()
        let leader = try workflow.add("leader", coalesce: "k") { _ in
            await arrived.wait()
            await gate.wait()
            return 1
        }
        try workflow.add("joiner", coalesce: "k") { _ in 2 }
        try workflow.add("after-joiner", needs: ["joiner"]) { _ in }
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let run = try workflow.start(RunOptions(maxConcurrency: 2, keepGoing: true, events: continuation))
        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        var events = stream.makeAsyncIterator()
        var joinerStarted = false
        while !joinerStarted, let event = await events.next() { joinerStarted = event == .started("joiner") }
        #expect(Set(run.snapshot.running) == ["leader", "joiner"], "a joiner is running, without a worker")
        run.cancel("joiner")
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(report.outcome(of: "joiner")?.status == .cancelled)
        #expect(report.outcome(of: "after-joiner")?.status == .skipped)
        #expect(report.value(of: leader) == 1)
    }

    /// A child whose key matches a running job joins it instead of running again.
    @Test(arguments: 0..<10)
    func aChildWithTheKeyOfARunningJobJoinsIt(repetition: Int) async throws {
        let (gate, arrived) = (Gate(), Gate())
        arrived.open()
        let calls = LockedValue(0)
        var workflow = Workflow()
        try workflow.add("fetch", coalesce: "config") { _ in
            calls.withLock { $0 += 1 }
            await arrived.wait()
            await gate.wait()
            return "config v1"
        }
        let parent = try workflow.add("screen") { ctx in
            let child = try ctx.addChild("fetch-again", coalesce: "config") { _ in
                calls.withLock { $0 += 1 }
                return "config v2"
            }
            gate.open()
            return try await ctx.value(of: child)
        }
        let report = try #require(await BoundedWait.report(try workflow.start(RunOptions(maxConcurrency: 2))))
        #expect(calls.value == 1)
        #expect(report.value(of: parent) == "config v1")
        #expect(report.outcome(of: "screen/fetch-again")?.attempts == 0)
        #expect(report.outcome(of: "screen/fetch-again")?.parent == "screen")
    }

    /// Reduced from `ChildPropertyTests` seed 2962 (outside the sweep's 200 seeds). A worker
    /// whose job was cancelled retires when the job ends, and `dispatch` takes the next job for
    /// a new worker. When the last jobs all share a finished leader's result, taking them ends
    /// the run; `next(forSlot:)` checked for that only after its own `takeReady`, not after
    /// `dispatch`, so the run never reported.
    @Test(arguments: 0..<10)
    func aRunEndedByTakingJobsThatShareAFinishedResultReports(repetition: Int) async throws {
        let gate = Gate()
        var workflow = Workflow()
        try workflow.add("leader", priority: .userInitiated, coalesce: "k") { _ in 1 }
        try workflow.add("cancelled") { ctx in
            await gate.wait()
            try ctx.checkCancellation()
        }
        let joiner = try workflow.add("joiner", priority: .background, coalesce: "k") { _ in 2 }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 1))
        await events.wait(for: .started("cancelled"))  // the leader has ended; the joiner is queued
        run.cancel("cancelled")
        gate.open()
        let report = try #require(await BoundedWait.report(run), "the run never reports")
        #expect(report.outcome(of: "cancelled")?.status == .cancelled)
        #expect(report.value(of: joiner) == 1)
        #expect(report.outcome(of: "joiner")?.attempts == 0)
    }
}
