@testable import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Synchronization
import Testing

/// Spare workers (`RunCore+Spares.swift`): a worker that gives its slot to a parent resuming
/// stays parked, to be the next new worker, instead of ending its task. The count of tasks
/// started is internal: nothing outside the run can see which task ran a job.
@Suite(.suiteTimeLimit)
struct SpareWorkerTests {
    /// Each parent gives its worker up to wait for its child, a worker is wanted for the child,
    /// and one leaves when the parent resumes: before spares, each parent started a task.
    @Test(arguments: [1, 2])
    func parentsThatEachAddAChildReuseTheirWorkers(maxConcurrency: Int) async throws {
        let parents = 1_000
        var workflow = Workflow()
        for parent in 0..<parents {
            try workflow.add(JobID("p\(parent)")) { ctx in
                let child = try ctx.addChild("c") { _ in parent }
                #expect(try await ctx.value(of: child) == parent)
            }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: maxConcurrency))
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(report.status == .succeeded)
        #expect(report.outcomes.count == 2 * parents)
        let (started, spares) = run.core.state.withLock { ($0.startedWorkers, $0.spares.count) }
        // A spare parks a moment after it is told to leave, so a new worker is now and then
        // wanted before it parked: a task is started then, but not one per parent.
        #expect(started < parents / 10, "\(started) worker tasks for \(parents) parents")
        #expect(spares == 0, "spares left parked after the run ended")
    }

    /// A worker whose job was cancelled has its task cancelled (now or just after it reports):
    /// it must never become a spare, or the jobs it ran next would see a cancellation that was
    /// not theirs.
    @Test func aWorkerWhoseJobWasCancelledIsNeverReused() async throws {
        let parents = 200
        let cancelled = 50
        let sawCancellation = Atomic<Int>(0)
        var workflow = Workflow()
        for parent in 0..<parents {
            try workflow.add(JobID("p\(parent)")) { ctx in
                try ctx.addChild("c") { _ in
                    if parent == cancelled {
                        let gate = Gate()
                        await withTaskCancellationHandler { await gate.wait() } onCancel: { gate.open() }
                        try Task.checkCancellation()
                    }
                    if Task.isCancelled { sawCancellation.add(1, ordering: .relaxed) }
                }
                _ = try? await ctx.waitForChildren()
            }
        }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 1))
        await events.wait(for: .started(JobID("p\(cancelled)/c")))
        run.cancel(JobID("p\(cancelled)/c"))
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(sawCancellation.load(ordering: .relaxed) == 0)
        #expect(report.outcome(of: JobID("p\(cancelled)/c"))?.status == .cancelled)
        let others = report.outcomes.filter { $0.id != JobID("p\(cancelled)/c") }
        #expect(others.allSatisfy { $0.status == .succeeded }, "\(others.filter { $0.status != .succeeded }.map(\.id))")
        #expect(run.core.state.withLock { $0.spares.isEmpty })
    }
}
