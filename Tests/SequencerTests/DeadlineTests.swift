import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

private struct Flaky: Error, Equatable {
    let attempt: Int
}

/// Adds a job that sleeps on `clock` for `duration`, recording its call and whether it saw
/// cancellation, and returns `value`.
@discardableResult
private func addSleeper<T: Sendable>(
    _ workflow: inout Workflow, _ id: JobID, needs: [JobID] = [], lane: String? = nil,
    clock: ManualClock, for duration: Duration, log: CallLog, returning value: T
) throws -> JobHandle<T> {
    try workflow.add(id, needs: needs, lane: lane) { _ in
        log.called(id)
        do {
            try await clock.sleep(for: duration)
        } catch {
            log.sawCancellation(id)
            throw error
        }
        return value
    }
}

@Suite(.suiteTimeLimit)
struct DeadlineTests {
    @Test(arguments: 0..<20)
    func atTheDeadlineRunningJobsTimeOutAndJobsNotStartedAreCancelled(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        let a = try workflow.add("a") { _ in log.called("a"); return 42 }
        let b = try addSleeper(&workflow, "b", needs: ["a"], clock: clock, for: .seconds(100), log: log, returning: "b")
        try workflow.add("c", needs: ["b"]) { _ in log.called("c") }
        try addSleeper(&workflow, "d", clock: clock, for: .seconds(100), log: log, returning: ())
        try workflow.add("e", needs: ["d"]) { _ in log.called("e") }
        let run = try workflow.start(RunOptions(maxConcurrency: 4, deadline: .seconds(10), clock: clock))

        try #require(await BoundedWait.sleepers(clock, atLeast: 3))  // the deadline timer, b and d
        #expect(run.snapshot.succeeded == 1)
        #expect(Set(run.snapshot.running) == ["b", "d"])
        clock.advance(by: .seconds(9))
        #expect(run.snapshot.isFinished == false, "nothing happens before the deadline")
        clock.advance(by: .seconds(1))
        let report = try #require(await BoundedWait.report(run))

        #expect(report.status == .timedOut)
        #expect(report.outcome(of: "a")?.status == .succeeded)
        #expect(report.value(of: a) == 42, "partial results stay readable")
        #expect(report.value(of: b) == nil)
        for job: JobID in ["b", "d"] {
            let outcome = try #require(report.outcome(of: job))
            #expect(outcome.status == .timedOut, "\(job)")
            #expect(outcome.error?.code == .deadlineExceeded)
            #expect(log.sawCancellation(of: job), "\(job) was not cancelled at the deadline")
            #expect(outcome.attempts == 1)
            #expect(outcome.startedAt == .zero)
            #expect(outcome.endedAt == .seconds(10))
        }
        for job: JobID in ["c", "e"] {
            let outcome = try #require(report.outcome(of: job))
            #expect(log.calls(job) == 0, "\(job) started after the deadline")
            #expect(outcome.status == .cancelled, "\(job)")
            #expect(outcome.error?.code == .deadlineExceeded)
            #expect(outcome.startedAt == nil && outcome.attempts == 0)
        }
        #expect(report.count(.succeeded) == 1 && report.count(.timedOut) == 2 && report.count(.cancelled) == 2)
    }

    @Test(arguments: 0..<20)
    func whatFinishedBeforeTheDeadlineKeepsItsResultAndTimes(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        let a = try addSleeper(&workflow, "a", clock: clock, for: .seconds(3), log: log, returning: "first")
        try addSleeper(&workflow, "b", needs: ["a"], clock: clock, for: .seconds(100), log: log, returning: "second")
        let run = try workflow.start(RunOptions(maxConcurrency: 2, deadline: .seconds(10), clock: clock))

        try #require(await BoundedWait.sleepers(clock, atLeast: 2))  // the deadline timer and a
        clock.advance(by: .seconds(3))
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))  // the deadline timer and b
        clock.advance(by: .seconds(7))
        let report = try #require(await BoundedWait.report(run))

        #expect(report.status == .timedOut)
        let first = try #require(report.outcome(of: "a"))
        #expect(first.status == .succeeded && first.error == nil)
        #expect(first.startedAt == .zero && first.endedAt == .seconds(3))
        #expect(report.value(of: a) == "first")
        let second = try #require(report.outcome(of: "b"))
        #expect(second.status == .timedOut && second.error?.code == .deadlineExceeded)
        #expect(second.startedAt == .seconds(3) && second.endedAt == .seconds(10))
        #expect(report.duration == .seconds(10))
        #expect(report.criticalPath == ["a", "b"])
    }

    @Test func aRunThatEndsBeforeItsDeadlineSucceedsAndLeavesNoTimerBehind() async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        let a = try workflow.add("a") { _ in 1 }
        try workflow.add("b", needs: ["a"]) { ctx in try await ctx.value(of: a) + 1 }
        let run = try workflow.start(RunOptions(deadline: .seconds(10), clock: clock))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .succeeded)
        #expect(clock.sleeperCount == 0, "the deadline timer is cancelled when the run ends")
        clock.advance(by: .seconds(60))
        let again = try #require(await BoundedWait.report(run))
        #expect(again.status == .succeeded && again.count(.succeeded) == 2)
    }

    @Test(arguments: 0..<20)
    func jobsWaitingInASerialLaneAtTheDeadlineNeverStart(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        workflow.lane("serial", width: 1)
        try addSleeper(&workflow, "x", lane: "serial", clock: clock, for: .seconds(100), log: log, returning: ())
        try workflow.add("y", lane: "serial") { _ in log.called("y") }
        try workflow.add("z", lane: "serial") { _ in log.called("z") }
        let run = try workflow.start(RunOptions(maxConcurrency: 4, deadline: .seconds(5), clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))  // the deadline timer and x
        clock.advance(by: .seconds(5))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .timedOut)
        #expect(report.outcome(of: "x")?.status == .timedOut)
        for job: JobID in ["y", "z"] {
            #expect(log.calls(job) == 0)
            #expect(report.outcome(of: job)?.status == .cancelled)
            #expect(report.outcome(of: job)?.error?.code == .deadlineExceeded)
        }
    }

    /// The run's deadline comes before the job's own timeout: the deadline is the reason.
    @Test(arguments: 0..<10)
    func aDeadlineBeforeAJobsTimeoutIsReportedAsTheDeadline(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("slow", timeout: .seconds(50)) { _ in
            log.called("slow")
            do { try await clock.sleep(for: .seconds(100)) } catch { log.sawCancellation("slow"); throw error }
        }
        let run = try workflow.start(RunOptions(deadline: .seconds(10), clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 3))  // deadline timer, body, job timeout
        clock.advance(by: .seconds(10))
        let report = try #require(await BoundedWait.report(run))
        let outcome = try #require(report.outcome(of: "slow"))
        #expect(log.sawCancellation(of: "slow"))
        #expect(outcome.status == .timedOut)
        #expect(outcome.error?.code == .deadlineExceeded)
        #expect(outcome.endedAt == .seconds(10))
        #expect(report.status == .timedOut)
        #expect(clock.sleeperCount == 0)
    }

    /// A retry whose wait would end after the deadline is not attempted: the job fails with
    /// its error at once, rather than sleeping until the deadline cuts it off.
    @Test(arguments: 0..<10)
    func aRetryThatWouldEndAfterTheDeadlineIsNotAttempted(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("r", retry: .fixed(attempts: 3, delay: .seconds(5))) { ctx in
            log.called("r", attempt: ctx.attempt)
            throw Flaky(attempt: ctx.attempt)
        }
        let run = try workflow.start(RunOptions(deadline: .seconds(3), clock: clock))
        let report = try #require(await BoundedWait.report(run))
        let outcome = try #require(report.outcome(of: "r"))
        #expect(log.attempts("r") == [1])
        #expect(outcome.status == .failed)
        #expect((outcome.error?.underlying as? Flaky)?.attempt == 1)
        #expect(outcome.attempts == 1)
        #expect(outcome.endedAt == .zero, "no time passed: it did not wait")
        #expect(report.status == .failed)
    }

    /// Retries that fit before the deadline happen; the first that would not fit is skipped.
    @Test(arguments: 0..<10)
    func retriesThatFitBeforeTheDeadlineHappen(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("r", retry: .fixed(attempts: 5, delay: .seconds(2))) { ctx in
            log.called("r", attempt: ctx.attempt)
            throw Flaky(attempt: ctx.attempt)
        }
        let run = try workflow.start(RunOptions(deadline: .seconds(5), clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))  // the deadline timer and the backoff
        clock.advance(by: .seconds(2))
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))
        clock.advance(by: .seconds(2))  // attempt 3 at 4 s; a 4th would start at 6 s, after the deadline
        let report = try #require(await BoundedWait.report(run))
        let outcome = try #require(report.outcome(of: "r"))
        #expect(log.attempts("r") == [1, 2, 3])
        #expect(outcome.status == .failed)
        #expect(outcome.attempts == 3)
        #expect(outcome.endedAt == .seconds(4))
        #expect(report.status == .failed)
    }

    /// A body that does not check for cancellation finishes after the deadline; its result is
    /// kept, and the jobs that had not started are still cancelled.
    @Test(arguments: 0..<10)
    func aBodyThatIgnoresTheDeadlineKeepsWhatItReturns(repetition: Int) async throws {
        let clock = ManualClock()
        let gate = Gate()
        let log = CallLog()
        var workflow = Workflow()
        let stubborn = try workflow.add("stubborn") { _ in
            await gate.wait()
            return "done anyway"
        }
        try workflow.add("after", needs: ["stubborn"]) { _ in log.called("after") }
        let (events, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let run = try workflow.start(RunOptions(deadline: .seconds(1), clock: clock, events: continuation))
        try #require(await BoundedWait.arrivals(gate, atLeast: 1))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))
        clock.advance(by: .seconds(1))
        // Let the body finish only once the deadline has been handled: "after" ends first.
        var sawAfterEnd = false
        for await event in events {
            if case .finished("after", _) = event { sawAfterEnd = true; break }
        }
        #expect(sawAfterEnd)
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .timedOut)
        #expect(report.outcome(of: "stubborn")?.status == .succeeded)
        #expect(report.value(of: stubborn) == "done anyway")
        #expect(log.calls("after") == 0)
        #expect(report.outcome(of: "after")?.status == .cancelled)
        #expect(report.outcome(of: "after")?.error?.code == .deadlineExceeded)
    }

    /// A deadline that has already passed when the run starts: the jobs handed to workers at
    /// the start see the cancellation at once and time out, every other job is cancelled, and
    /// each job ends exactly once.
    @Test(arguments: 0..<10)
    func aDeadlineThatHasAlreadyPassedEndsEveryJobOnce(repetition: Int) async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        for index in 0..<8 {
            try workflow.add(JobID("root\(index)")) { _ in try await clock.sleep(for: .seconds(1)) }
            try workflow.add(JobID("child\(index)"), needs: [JobID("root\(index)")]) { _ in }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 2, deadline: .zero, clock: clock))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .timedOut)
        #expect(report.count(.succeeded) == 0)
        #expect(report.count(.timedOut) + report.count(.cancelled) + report.count(.skipped) == 16)
        #expect(report.count(.timedOut) <= 2)
        for outcome in report.outcomes where outcome.status == .cancelled {
            #expect(outcome.startedAt == nil)
            #expect(outcome.error?.code == .deadlineExceeded)
        }
    }
}
