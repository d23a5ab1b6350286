import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Collects every snapshot of a stream until it finishes, or nil if the test was cancelled first.
private func collect(_ stream: AsyncStream<RunSnapshot>) async -> [RunSnapshot]? {
    await BoundedWait.value {
        var all: [RunSnapshot] = []
        for await snapshot in stream { all.append(snapshot) }
        return all
    }
}

@Suite(.suiteTimeLimit)
struct SnapshotTests {
    /// A thousand jobs finish while the snapshot clock stands still: the stream delivers the
    /// first snapshot and the final one, never one per job.
    @Test(arguments: 0..<10)
    func aThousandJobsWithTheClockStoppedGiveTheFirstAndTheFinalSnapshot(repetition: Int) async throws {
        let clock = ManualClock()
        let gate = Gate()
        var workflow = Workflow()
        try workflow.add("root") { _ in await gate.wait() }
        for index in 0..<1_000 { try workflow.add(JobID("job-\(index)"), needs: ["root"]) { _ in index } }
        let run = try workflow.start(RunOptions(maxConcurrency: 2, clock: clock))
        let stream = run.snapshots(every: .milliseconds(16))
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(!first.isFinished)
        #expect(first.total == 1_001 && first.finished == 0 && first.running == ["root"] && first.pending == 1_000)
        gate.open()
        var rest: [RunSnapshot] = []
        while let snapshot = await iterator.next() { rest.append(snapshot) }
        #expect(rest.count == 1, "with the clock stopped only the final snapshot follows the first, got \(rest.count)")
        let last = try #require(rest.last)
        #expect(last.isFinished)
        #expect(last.succeeded == 1_001 && last.finished == 1_001 && last.pending == 0 && last.running.isEmpty)
        let report = try #require(await BoundedWait.report(run))
        #expect(report.count(.succeeded) == 1_001)
    }

    /// The same without holding the jobs back: whatever the timing, at most the first and the
    /// final snapshot.
    @Test(arguments: 0..<10)
    func aThousandQuickJobsGiveAtMostTwoSnapshots(repetition: Int) async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        for index in 0..<1_000 { try workflow.add(JobID("job-\(index)")) { _ in index } }
        let run = try workflow.start(RunOptions(maxConcurrency: 2, clock: clock))
        let snapshots = try #require(await collect(run.snapshots(every: .milliseconds(16))))
        #expect((1...2).contains(snapshots.count), "\(snapshots.count) deliveries for 1,000 jobs")
        #expect(snapshots.dropLast().allSatisfy { !$0.isFinished })
        let last = try #require(snapshots.last)
        #expect(last.isFinished && last.succeeded == 1_000)
    }

    /// Gated jobs of a chain finish one by one while the clock moves one interval at a time:
    /// one delivery per interval in which something changed, each showing the state then.
    @Test(arguments: 0..<20)
    func advancingTheClockDeliversOneSnapshotPerInterval(repetition: Int) async throws {
        let clock = ManualClock()
        let count = 6
        let gates = (0..<count).map { _ in Gate() }
        var workflow = Workflow()
        for index in 0..<count {
            let gate = gates[index]
            try workflow.add(JobID("step-\(index)"), needs: index == 0 ? [] : [JobID("step-\(index - 1)")]) { _ in
                await gate.wait()
            }
        }
        let run = try workflow.start(RunOptions(clock: clock))
        var iterator = run.snapshots(every: .seconds(1)).makeAsyncIterator()
        var deliveries = 0
        var intervals = 0

        let first = try #require(await iterator.next())
        deliveries += 1
        #expect(first.running == ["step-0"] && first.finished == 0 && first.elapsed == .zero)
        for index in 0..<(count - 1) {
            gates[index].open()
            try #require(await BoundedWait.arrivals(gates[index + 1], atLeast: 1))  // the next step runs
            try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the stream waits for its interval
            clock.advance(by: .seconds(1))
            intervals += 1
            let snapshot = try #require(await iterator.next())
            deliveries += 1
            #expect(snapshot.finished == index + 1 && snapshot.succeeded == index + 1)
            #expect(snapshot.running == [JobID("step-\(index + 1)")])
            #expect(snapshot.elapsed == .seconds(intervals))
            #expect(!snapshot.isFinished)
        }
        gates[count - 1].open()
        let last = try #require(await iterator.next())
        deliveries += 1
        #expect(last.isFinished && last.succeeded == count)
        #expect(await iterator.next() == nil, "the stream finishes with the run")
        #expect(deliveries <= intervals + 2)
    }

    /// Many jobs finish within one interval: one delivery for all of them.
    @Test(arguments: 0..<20)
    func jobsFinishingWithinOneIntervalShareOneSnapshot(repetition: Int) async throws {
        let clock = ManualClock()
        let firstHalf = Gate()
        let secondHalf = Gate()
        let (events, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        var workflow = Workflow()
        for index in 0..<20 {
            let gate = index < 10 ? firstHalf : secondHalf
            try workflow.add(JobID("job-\(index)")) { _ in await gate.wait() }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 20, clock: clock, events: continuation))
        var iterator = run.snapshots(every: .seconds(1)).makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.finished == 0)

        firstHalf.open()
        var finished = 0
        for await event in events {
            if case .finished = event { finished += 1 }
            if finished == 10 { break }
        }
        try #require(finished == 10)
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))
        clock.advance(by: .seconds(1))
        let middle = try #require(await iterator.next())
        #expect(middle.finished == 10 && middle.running.count == 10, "one snapshot for ten finished jobs")

        secondHalf.open()
        let last = try #require(await iterator.next())
        #expect(last.isFinished && last.finished == 20)
        #expect(await iterator.next() == nil)
    }

    @Test func aStreamAskedForAfterTheRunEndedDeliversOnlyTheFinalSnapshot() async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        try workflow.add("b", needs: ["a"]) { _ in }
        let run = try workflow.start(RunOptions(clock: clock))
        _ = try #require(await BoundedWait.report(run))
        let snapshots = try #require(await collect(run.snapshots(every: .seconds(1))))
        #expect(snapshots.count == 1)
        #expect(snapshots.first?.isFinished == true && snapshots.first?.succeeded == 2)
    }

    @Test(arguments: 0..<10)
    func aCancelledRunEndsItsStreamsWithAFinalSnapshot(repetition: Int) async throws {
        let clock = ManualClock()
        let hold = ManualClock()
        var workflow = Workflow()
        try workflow.add("held") { _ in try await hold.sleep(for: .seconds(1)) }
        try workflow.add("after", needs: ["held"]) { _ in }
        let run = try workflow.start(RunOptions(clock: clock))
        let streams = (0..<3).map { _ in run.snapshots(every: .seconds(1)) }
        try #require(await BoundedWait.sleepers(hold, atLeast: 1))
        #expect(run.snapshot.running == ["held"] && run.snapshot.pending == 1)
        run.cancel()
        for stream in streams {
            let snapshots = try #require(await collect(stream))
            #expect((1...2).contains(snapshots.count))
            let last = try #require(snapshots.last)
            #expect(last.isFinished && last.cancelled == 2 && last.running.isEmpty && last.pending == 0)
        }
    }

    @Test func aDeadlineEndsTheStreamWithTheTimedOutCounts() async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        try workflow.add("done") { _ in }
        try workflow.add("slow", needs: ["done"]) { _ in try await clock.sleep(for: .seconds(100)) }
        try workflow.add("never", needs: ["slow"]) { _ in }
        let run = try workflow.start(RunOptions(deadline: .seconds(10), clock: clock))
        let stream = run.snapshots(every: .seconds(60))
        try #require(await BoundedWait.sleepers(clock, atLeast: 3))  // deadline timer, stream, slow
        clock.advance(by: .seconds(10))
        let snapshots = try #require(await collect(stream))
        let last = try #require(snapshots.last)
        #expect(last.isFinished)
        #expect(last.succeeded == 1 && last.timedOut == 1 && last.cancelled == 1)
        #expect(last.elapsed == .seconds(10))
    }

    @Test func aListenerThatStopsEarlyDoesNotDisturbTheRun() async throws {
        let clock = ManualClock()
        let gate = Gate()
        var workflow = Workflow()
        try workflow.add("a") { _ in await gate.wait() }
        let run = try workflow.start(RunOptions(clock: clock))
        for await snapshot in run.snapshots(every: .seconds(1)) {
            #expect(snapshot.running == ["a"])
            break
        }
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .succeeded)
    }
}
