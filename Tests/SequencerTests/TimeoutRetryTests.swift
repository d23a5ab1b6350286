import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

private struct Flaky: Error, Equatable {
    let attempt: Int
}

@Suite(.suiteTimeLimit)
struct TimeoutRetryTests {
    // MARK: - Timeout

    @Test(arguments: 0..<20)
    func aBodyStillRunningAtItsTimeoutTimesOutAndItsDependentsAreSkipped(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("slow", timeout: .seconds(5)) { _ in
            log.called("slow")
            do {
                try await clock.sleep(for: .seconds(100))
            } catch {
                log.sawCancellation("slow")
                throw error
            }
        }
        try workflow.add("after", needs: ["slow"]) { _ in log.called("after") }
        try workflow.add("later", needs: ["after"]) { _ in log.called("later") }
        let run = try workflow.start(RunOptions(maxConcurrency: 2, clock: clock))

        try #require(await BoundedWait.sleepers(clock, atLeast: 2))  // the body and its timeout
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 2, "the timeout has not passed yet")
        clock.advance(by: .seconds(1))
        let report = try #require(await BoundedWait.report(run))

        let slow = try #require(report.outcome(of: "slow"))
        #expect(slow.status == .timedOut)
        #expect(slow.error?.code == .timedOut)
        #expect(slow.attempts == 1)
        #expect(slow.startedAt == .zero && slow.endedAt == .seconds(5))
        #expect(log.sawCancellation(of: "slow"), "the body is cancelled when its timeout passes")
        let after = try #require(report.outcome(of: "after"))
        #expect(after.status == .skipped)
        #expect(after.error?.code == .neededJobFailed)
        #expect(after.error?.path == ["slow", "after"])
        #expect(report.outcome(of: "later")?.error?.path == ["slow", "after", "later"])
        #expect(log.calls("after") == 0 && log.calls("later") == 0)
        #expect(report.status == .failed)
        #expect(clock.sleeperCount == 0)
    }

    @Test(arguments: 0..<10)
    func aBodyThatFinishesBeforeItsTimeoutSucceeds(repetition: Int) async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        let quick = try workflow.add("quick", timeout: .seconds(5)) { _ in
            try await clock.sleep(for: .seconds(2))
            return "in time"
        }
        let run = try workflow.start(RunOptions(clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))
        clock.advance(by: .seconds(2))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .succeeded)
        #expect(report.value(of: quick) == "in time")
        #expect(report.outcome(of: "quick")?.endedAt == .seconds(2))
        #expect(clock.sleeperCount == 0, "the timeout's timer ends with the body")
    }

    /// Rejected by `add`, as by `addChild` and a queue's `add`: the job is not added.
    @Test func nonPositiveTimeoutsAndZeroAttemptsAreRejected() throws {
        var zeroTimeout = Workflow()
        #expect { try zeroTimeout.add("a", timeout: .zero) { _ in } } throws: { ($0 as? WorkflowError)?.code == .invalidOption }
        #expect(zeroTimeout.count == 0)
        try zeroTimeout.validate()

        var noAttempts = Workflow()
        #expect { try noAttempts.add("a", retry: .fixed(attempts: 0, delay: .seconds(1))) { _ in } } throws: {
            ($0 as? WorkflowError)?.code == .invalidOption
        }
        try noAttempts.add("b", timeout: .seconds(1)) { _ in }
        #expect(noAttempts.count == 1)
    }

    /// Retry policies that cannot work are errors before anything runs, never a crash.
    @Test(arguments: [
        RetryPolicy.exponential(attempts: 3, multiplier: .nan),
        .exponential(attempts: 3, multiplier: .infinity),
        .exponential(attempts: 3, multiplier: 0.5),
        .exponential(attempts: 3, initial: .seconds(-1)),
        .fixed(attempts: 2, delay: .milliseconds(-5)),
    ])
    func impossibleRetryPoliciesAreRejected(policy: RetryPolicy) throws {
        var workflow = Workflow()
        let error = #expect(throws: WorkflowError.self) { try workflow.add("a", retry: policy) { _ in } }
        #expect(error?.code == .invalidOption)
        #expect(error?.message.contains("'a'") == true)
    }

    /// An enormous multiplier reaches the maximum delay without overflowing a Duration.
    @Test func delaysNeverOverflow() {
        let policy = RetryPolicy.exponential(attempts: 100, initial: .seconds(1), multiplier: 1e300, max: .seconds(30))
        #expect(policy.delay(beforeAttempt: 1) == .zero)
        #expect(policy.delay(beforeAttempt: 2) == .seconds(1))
        #expect(policy.delay(beforeAttempt: 3) == .seconds(30))
        #expect(policy.delay(beforeAttempt: 100) == .seconds(30))
        let doubling = RetryPolicy.exponential(attempts: 5, initial: .milliseconds(100), max: .seconds(1))
        #expect((2...6).map(doubling.delay(beforeAttempt:)) == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1)])
    }

    // MARK: - Retry

    @Test(arguments: 0..<20)
    func aBodyThatFailsTwiceThenSucceedsSucceedsOnTheThirdAttempt(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        let flaky = try workflow.add("flaky", retry: .fixed(attempts: 3, delay: .seconds(1))) { ctx in
            log.called("flaky", attempt: ctx.attempt)
            if ctx.attempt < 3 { throw Flaky(attempt: ctx.attempt) }
            return ctx.attempt
        }
        let run = try workflow.start(RunOptions(clock: clock))
        for _ in 0..<2 {
            try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the backoff
            clock.advance(by: .milliseconds(999))
            #expect(clock.sleeperCount == 1, "the backoff lasts the whole second")
            clock.advance(by: .milliseconds(1))
        }
        let report = try #require(await BoundedWait.report(run))
        let outcome = try #require(report.outcome(of: "flaky"))
        #expect(outcome.status == .succeeded)
        #expect(outcome.error == nil)
        #expect(outcome.attempts == 3)
        #expect(report.value(of: flaky) == 3)
        #expect(log.attempts("flaky") == [1, 2, 3])
        #expect(outcome.startedAt == .zero && outcome.endedAt == .seconds(2))
        #expect(report.status == .succeeded)
    }

    @Test(arguments: 0..<20)
    func whenRetriesRunOutTheJobFailsWithItsLastError(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("doomed", retry: .fixed(attempts: 3, delay: .seconds(1))) { ctx in
            log.called("doomed", attempt: ctx.attempt)
            throw Flaky(attempt: ctx.attempt)
        }
        try workflow.add("after", needs: ["doomed"]) { _ in log.called("after") }
        let run = try workflow.start(RunOptions(clock: clock))
        for _ in 0..<2 {
            try #require(await BoundedWait.sleepers(clock, atLeast: 1))
            clock.advance(by: .seconds(1))
        }
        let report = try #require(await BoundedWait.report(run))
        let outcome = try #require(report.outcome(of: "doomed"))
        #expect(outcome.status == .failed)
        #expect(outcome.attempts == 3)
        #expect(log.attempts("doomed") == [1, 2, 3])
        #expect(outcome.error?.code == .failed)
        #expect(outcome.error?.underlying as? Flaky == Flaky(attempt: 3), "the last error is kept")
        #expect(outcome.error?.path == ["doomed"])
        let after = try #require(report.outcome(of: "after"))
        #expect(after.status == .skipped && after.error?.code == .neededJobFailed)
        #expect(after.error?.underlying as? Flaky == Flaky(attempt: 3), "a skip carries the cause")
        #expect(log.calls("after") == 0)
        #expect(report.status == .failed)
        #expect(clock.sleeperCount == 0, "no backoff after the last attempt")
    }

    @Test(arguments: 0..<10)
    func aCancellationErrorIsNotRetried(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("gives-up", retry: .fixed(attempts: 3, delay: .seconds(1))) { ctx in
            log.called("gives-up", attempt: ctx.attempt)
            throw CancellationError()
        }
        let run = try workflow.start(RunOptions(clock: clock))
        let report = try #require(await BoundedWait.report(run))
        let outcome = try #require(report.outcome(of: "gives-up"))
        #expect(log.attempts("gives-up") == [1])
        #expect(outcome.attempts == 1)
        #expect(outcome.status == .cancelled)
        #expect(outcome.error?.underlying is CancellationError)
        #expect(clock.sleeperCount == 0)
    }

    @Test(arguments: [false, true], 0..<10)
    func cancellingAJobWaitingToRetryStopsItsRetries(byID: Bool, repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("flaky", retry: .fixed(attempts: 5, delay: .seconds(1))) { ctx in
            log.called("flaky", attempt: ctx.attempt)
            throw Flaky(attempt: ctx.attempt)
        }
        let run = try workflow.start(RunOptions(clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // waiting before attempt 2
        if byID { run.cancel("flaky") } else { run.cancel() }
        let report = try #require(await BoundedWait.report(run))
        let outcome = try #require(report.outcome(of: "flaky"))
        #expect(log.attempts("flaky") == [1])
        #expect(outcome.status == .cancelled)
        #expect(outcome.attempts == 1, "the attempt that never started is not counted")
        #expect(outcome.error?.code == .cancelled)
        #expect(report.status == .cancelled)
    }

    @Test func exponentialBackoffWaitsLongerEachTimeUpToItsMaximum() async throws {
        let policy = RetryPolicy.exponential(attempts: 6, initial: .seconds(1), multiplier: 2, max: .seconds(5), jitter: 0)
        #expect(policy.maxAttempts == 6)
        #expect((1...6).map { policy.delay(beforeAttempt: $0) } == [.zero, .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        #expect(RetryPolicy.fixed(attempts: 4, delay: .seconds(3)).delay(beforeAttempt: 4) == .seconds(3))
        #expect(RetryPolicy.none.maxAttempts == 1)

        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("backoff", retry: policy) { ctx in
            log.called("backoff", attempt: ctx.attempt)
            throw Flaky(attempt: ctx.attempt)
        }
        let run = try workflow.start(RunOptions(clock: clock))
        for seconds in [1, 2, 4, 5, 5] {
            try #require(await BoundedWait.sleepers(clock, atLeast: 1))
            clock.advance(by: .seconds(seconds) - .nanoseconds(1))
            #expect(clock.sleeperCount == 1, "the wait before the next attempt is \(seconds)s")
            clock.advance(by: .nanoseconds(1))
        }
        let report = try #require(await BoundedWait.report(run))
        #expect(log.attempts("backoff") == [1, 2, 3, 4, 5, 6])
        #expect(report.outcome(of: "backoff")?.attempts == 6)
        #expect(report.outcome(of: "backoff")?.endedAt == .seconds(17))
    }

    /// The timeout applies to each attempt, from the attempt's start; a timed-out attempt is not retried.
    @Test(arguments: 0..<10)
    func theTimeoutAppliesToEachAttempt(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        // No backoff: while attempt 1 runs two tasks sleep on the clock (the body, and the run's
        // timer task until its timeout at 5s). When attempt 1 fails at 3s, its body's sleep is
        // over, so "two sleepers" after the first advance can only mean attempt 2's body and the
        // timer task (still until 5s: attempt 2's timeout, at 8s, is later).
        try workflow.add("job", timeout: .seconds(5), retry: .fixed(attempts: 3, delay: .zero)) { ctx in
            log.called("job", attempt: ctx.attempt)
            if ctx.attempt == 1 {
                try await clock.sleep(for: .seconds(3))
                throw Flaky(attempt: 1)
            }
            try await clock.sleep(for: .seconds(100))
        }
        let run = try workflow.start(RunOptions(clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))  // attempt 1 and its timeout
        clock.advance(by: .seconds(3))                                // attempt 1 fails at 3s
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))  // attempt 2 and its timeout
        clock.advance(by: .seconds(4))
        // The timer task woke at 5s, found nothing due (attempt 1 had ended), and sleeps until 8s.
        try #require(await BoundedWait.sleeper(clock, until: .seconds(8)))
        #expect(clock.sleeperCount == 2, "at 7s attempt 2 has run 4s of its 5s")
        #expect(log.attempts("job") == [1, 2] && run.snapshot.running == ["job"], "not timed out at 7s")
        clock.advance(by: .seconds(1))
        let report = try #require(await BoundedWait.report(run))
        let outcome = try #require(report.outcome(of: "job"))
        #expect(outcome.status == .timedOut)
        #expect(outcome.error?.code == .timedOut)
        #expect(outcome.attempts == 2)
        #expect(log.attempts("job") == [1, 2])
        #expect(outcome.startedAt == .zero && outcome.endedAt == .seconds(8))
    }

    // MARK: - Retry decisions in a run

    private struct Fatal: Error {}

    private struct Throttled: RetryAfterProviding {
        let retryAfter: Duration?
    }

    @Test(arguments: 0..<10)
    func aPredicateDecidesWhichErrorsAreRetried(repetition: Int) async throws {
        let log = CallLog()
        var workflow = Workflow()
        let policy = RetryPolicy.fixed(attempts: 5, delay: .zero).retrying { $0 is Flaky }
        try workflow.add("job", retry: policy) { ctx in
            log.called("job", attempt: ctx.attempt)
            if ctx.attempt == 1 { throw Flaky(attempt: 1) }
            throw Fatal()
        }
        let report = try #require(await BoundedWait.report(try workflow.start()))
        let outcome = try #require(report.outcome(of: "job"))
        #expect(log.attempts("job") == [1, 2], "Flaky is retried, Fatal is not")
        #expect(outcome.attempts == 2)
        #expect(outcome.error?.underlying is Fatal, "the last error is kept")
    }

    /// A retry-after hint carried by the error replaces the computed delay, as CloudKit's
    /// `retryAfterSeconds` does.
    @Test(arguments: 0..<10)
    func aRetryAfterHintReplacesTheBackoff(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("sync", retry: .exponential(attempts: 3, initial: .seconds(1), jitter: 0)) { ctx in
            log.called("sync", attempt: ctx.attempt)
            if ctx.attempt == 1 { throw Throttled(retryAfter: .seconds(7)) }
            return "synced"
        }
        let run = try workflow.start(RunOptions(clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))
        #expect(clock.sleeperDeadlines == [manualInstant(.seconds(7))])
        clock.advance(by: .seconds(7) - .nanoseconds(1))
        #expect(clock.sleeperCount == 1, "it waits the 7 s the error asked for, not the policy's 1 s")
        #expect(log.attempts("sync") == [1])
        clock.advance(by: .nanoseconds(1))
        let report = try #require(await BoundedWait.report(run))
        #expect(log.attempts("sync") == [1, 2])
        #expect(report.outcome(of: "sync")?.status == .succeeded)
        #expect(report.outcome(of: "sync")?.endedAt == .seconds(7))
    }

    /// Jitter shortens each wait by a random part, never lengthens it.
    @Test(arguments: 0..<20)
    func jitterKeepsEachWaitWithinItsBounds(repetition: Int) async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        try workflow.add("job", retry: .exponential(attempts: 2, initial: .seconds(10), jitter: 0.5)) { ctx in
            if ctx.attempt == 1 { throw Flaky(attempt: 1) }
        }
        let run = try workflow.start(RunOptions(clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))
        clock.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(clock.sleeperCount == 1, "at most half of the 10 s is taken off")
        clock.advance(by: .seconds(5) + .nanoseconds(1))
        let report = try #require(await BoundedWait.report(run))
        let ended = try #require(report.outcome(of: "job")?.endedAt)
        #expect(ended >= .seconds(5) && ended <= .seconds(10))
    }
}
