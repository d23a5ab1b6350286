import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Bodies that ignore cancellation: a timeout, the deadline or a cancel still ends the job, and
/// the run, after the grace period. The body is blocked on a gate, which does not wake on
/// cancellation, and released at the end of each test.
@Suite(.suiteTimeLimit)
struct AbandonTests {
    /// A stubborn body: arrives at `gate`, waits for it to open whatever happens, then returns.
    private static func stubborn(_ gate: Gate, _ arrived: Gate, _ log: CallLog, _ id: JobID) -> @Sendable (JobContext) async throws -> String {
        { _ in
            log.called(id)
            await arrived.wait()
            await gate.wait()
            return "late"
        }
    }

    @Test(arguments: 0..<10)
    func aBodyIgnoringItsTimeoutIsAbandonedAfterTheGracePeriod(repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, arrived, log) = (Gate(), Gate(), CallLog())
        arrived.open()
        var workflow = Workflow()
        workflow.lane("serial", width: 1)
        let stuck = try workflow.add("stuck", lane: "serial", timeout: .seconds(5), Self.stubborn(gate, arrived, log, "stuck"))
        try workflow.add("after", needs: ["stuck"]) { _ in log.called("after") }
        try workflow.add("next-in-lane", lane: "serial") { _ in log.called("next-in-lane") }
        let run = try workflow.start(RunOptions(maxConcurrency: 1, keepGoing: true, clock: clock, gracePeriod: .seconds(1)))

        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the timeout
        clock.advance(by: .seconds(5))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the grace period
        #expect(log.calls("next-in-lane") == 0, "the lane is held during the grace period")
        clock.advance(by: .seconds(1))
        let report = try #require(await BoundedWait.report(run))

        let outcome = try #require(report.outcome(of: "stuck"))
        #expect(outcome.status == .timedOut)
        #expect(outcome.error?.code == .timedOut)
        #expect(outcome.startedAt == .zero && outcome.endedAt == .seconds(5), "timed out as of its timeout: \(outcome)")
        #expect(report.outcome(of: "after")?.status == .skipped)
        #expect(log.calls("after") == 0)
        // Its worker (the only one) and its lane slot were freed: the next lane job ran.
        #expect(report.outcome(of: "next-in-lane")?.status == .succeeded)
        #expect(report.value(of: stuck) == nil)
        #expect(gate.arrivals == 1, "the abandoned body is still blocked")

        gate.open()  // the late result is discarded: the report does not change
        #expect(await run.report().outcome(of: "stuck")?.status == .timedOut)
    }

    @Test(arguments: 0..<10)
    func aBodyIgnoringTheDeadlineIsCutOffAtTheDeadline(repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, arrived, log) = (Gate(), Gate(), CallLog())
        arrived.open()
        var workflow = Workflow()
        let fast = try workflow.add("fast") { _ in "in time" }
        try workflow.add("stuck", needs: [fast.id], Self.stubborn(gate, arrived, log, "stuck"))
        let run = try workflow.start(RunOptions(deadline: .seconds(3), clock: clock, gracePeriod: .seconds(2)))

        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        clock.advance(by: .seconds(3))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the grace period
        clock.advance(by: .seconds(2))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .timedOut)
        #expect(report.value(of: fast) == "in time", "partial results are kept")
        let stuck = try #require(report.outcome(of: "stuck"))
        #expect(stuck.status == .timedOut)
        #expect(stuck.error?.code == .deadlineExceeded)
        #expect(stuck.endedAt == .seconds(3))
        gate.open()
    }

    @Test(arguments: [false, true], 0..<5)
    func aCancelledBodyIgnoringCancellationIsAbandoned(byID: Bool, repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, arrived, log) = (Gate(), Gate(), CallLog())
        arrived.open()
        var workflow = Workflow()
        try workflow.add("stuck", Self.stubborn(gate, arrived, log, "stuck"))
        let run = try workflow.start(RunOptions(clock: clock, gracePeriod: .seconds(1)))
        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        if byID { run.cancel("stuck") } else { run.cancel() }
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))
        clock.advance(by: .seconds(1))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.outcome(of: "stuck")?.status == .cancelled)
        #expect(report.outcome(of: "stuck")?.endedAt == .seconds(1))
        #expect(report.status == .cancelled)
        gate.open()
    }

    /// A body that returns within the grace period is not abandoned: the report waits for it.
    @Test(arguments: 0..<10)
    func aBodyReturningWithinTheGracePeriodEndsNormally(repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, arrived, log) = (Gate(), Gate(), CallLog())
        arrived.open()
        var workflow = Workflow()
        try workflow.add("slowToStop", timeout: .seconds(5), Self.stubborn(gate, arrived, log, "slowToStop"))
        let run = try workflow.start(RunOptions(clock: clock, gracePeriod: .seconds(10)))
        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))
        clock.advance(by: .seconds(5))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the grace period
        gate.open()  // it returns (a value, but after its timeout: still timed out)
        let report = try #require(await BoundedWait.report(run))
        #expect(report.outcome(of: "slowToStop")?.status == .timedOut)
        #expect(report.outcome(of: "slowToStop")?.endedAt == .seconds(5))
        #expect(clock.sleeperCount == 0, "the grace timer was stopped")
    }
}
