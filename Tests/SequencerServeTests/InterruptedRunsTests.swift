import Foundation
import Sequencer
import SequencerHistory
import SequencerJournal
@testable import SequencerServe
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A journal's runs recorded as running are interrupted (their process died) but for the one
/// being recorded now: the runs page of either state is full, goes on where it stopped, and
/// counts each run in its own state.
@Suite(.suiteTimeLimit) struct InterruptedRunsTests {
    @Test func pagesOfInterruptedRunsAreFullWhileARunIsRecorded() async throws {
        let sqlite3 = "/usr/bin/sqlite3"
        let required = ProcessInfo.processInfo.environment["CI"] != nil
        guard required || FileManager.default.isExecutableFile(atPath: sqlite3) else {
            print("skipped: \(sqlite3) is needed to mark runs as left running")
            return
        }
        let workspace = try Workspace()
        for _ in 0..<4 { _ = try await workspace.recordLibraryRun(workflow: "w", jobs: [("a", [])]) }
        // Left as a killed `sequencer` leaves its run: running, with no end.
        let marking = Process()
        marking.executableURL = URL(fileURLWithPath: sqlite3)
        marking.arguments = [workspace.journal, "UPDATE runs SET status = 'running', ended_at = NULL"]
        try marking.run()
        await blocking { marking.waitUntilExit() }
        #expect(marking.terminationStatus == 0)

        // Run 5, being recorded now: its job waits at a gate.
        let gate = Gate()
        var workflow = Workflow()
        try workflow.add("hold") { _ in await gate.wait() }
        let recorder = try SQLiteJournal(path: workspace.journal).beginRun(workflow: "w")
        let run = try workflow.start(RunOptions(recorder: recorder))

        let history = JournalHistory(path: workspace.journal)
        let first = try await history.runs(RunQuery(state: .interrupted, limit: 2))
        #expect(first.runs.map(\.id) == [4, 3] && first.older == 3)
        #expect(first.runs.allSatisfy { $0.state == .interrupted } && first.total == 4)
        let second = try await history.runs(RunQuery(state: .interrupted, before: first.older, limit: 2))
        #expect(second.runs.map(\.id) == [2, 1] && second.older == nil)
        let running = try await history.runs(RunQuery(state: .running, limit: 2))
        #expect(running.runs.map(\.id) == [5] && running.total == 1 && running.older == nil)
        let otherWorkflow = try await history.runs(RunQuery(workflow: "other", state: .interrupted, limit: 2))
        #expect(otherWorkflow.runs.isEmpty && otherWorkflow.total == 0)

        gate.open()
        #expect(await run.report().status == .succeeded)
        let ended = try await history.runs(RunQuery(state: .running, limit: 2))
        #expect(ended.runs.isEmpty && ended.total == 0)
        let all = try await history.runs(RunQuery(limit: 10))
        #expect(all.runs.map(\.state) == [.succeeded, .interrupted, .interrupted, .interrupted, .interrupted])
    }
}
