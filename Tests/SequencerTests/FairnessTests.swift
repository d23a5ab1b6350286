import Sequencer
import Testing
import SequencerTestHelpers

/// A run shares the process's threads: its workers let other tasks run even when no job ever
/// suspends.
@Suite(.suiteTimeLimit) struct FairnessTests {
    /// As many workers as threads, 20,000 jobs that never suspend: a task started while they
    /// run gets a thread before the run ends. Before workers yielded, it ran only after the
    /// last job (and under ThreadSanitizer every other test in the process waited minutes).
    @Test func otherTasksRunWhileARunOfJobsThatNeverSuspendRuns() async throws {
        var workflow = Workflow()
        workflow.reserveCapacity(20_000)
        for index in 0..<20_000 { try workflow.add(JobID("j\(index)")) { _ in } }
        let run = try workflow.start(RunOptions(maxConcurrency: RunOptions.activeProcessorCount))
        let ranDuringTheRun = await Task.detached(priority: .utility) { !run.snapshot.isFinished }.value
        let report = await run.report()
        #expect(report.count(.succeeded) == 20_000)
        #expect(ranDuringTheRun, "the task waited for the whole run")
    }
}
