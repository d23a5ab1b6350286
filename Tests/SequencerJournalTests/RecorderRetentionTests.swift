import Sequencer
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A recorder lets go of its run's report once it has written it: a recorder is often kept by
/// the jobs themselves (an up-to-date check records through it), and the report keeps every
/// result of the run.
@Suite(.suiteTimeLimit) struct RecorderRetentionTests {
    /// A result that says when it goes.
    final class Result: Sendable {
        let gone: Locked<Bool>
        init(_ gone: Locked<Bool>) { self.gone = gone }
        deinit { gone.withLock { $0 = true } }
    }

    @Test func aWrittenReportIsNotKeptByItsRecorder() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-journal")
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        let recorder = try journal.beginRun(workflow: "w")
        let gone = Locked(false)
        var workflow = Workflow()
        try workflow.add("make") { _ in Result(gone) }
        var report: RunReport? = await (try workflow.start(RunOptions(recorder: recorder))).report()
        #expect(report?.status == .succeeded)
        #expect(try journal.run(recorder.runID)?.status == "succeeded")
        report = nil
        workflow = Workflow()
        // The worker that handed the report over lets go of the run just after.
        #expect(await eventually { gone.withLock { $0 } })
        #expect(recorder.writeError == nil)
    }
}
