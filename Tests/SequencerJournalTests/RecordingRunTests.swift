import Foundation
import Sequencer
@testable import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Which run a reader shows as running: the one another process records now, whether it is
/// the newest or an older run resumed.
@Suite struct RecordingRunTests {
    static func run(id: Int64, status: String) -> JournalRun {
        JournalRun(
            id: id, workflow: "w", info: nil, status: status, startedAt: 0, endedAt: nil, jobCount: 1, succeeded: 0, failed: 0,
            skipped: 0, cancelled: 0, timedOut: 0, sessions: 1)
    }

    @Test func aRunRecordedAsRunningRunsOnlyWhileItIsTheRecordedOne() {
        #expect(Self.run(id: 1, status: "running").state(recordingRun: 1) == "running")
        #expect(Self.run(id: 1, status: "running").state(recordingRun: 2) == "interrupted")
        #expect(Self.run(id: 1, status: "running").state(recordingRun: nil) == "interrupted")
        #expect(Self.run(id: 2, status: "succeeded").state(recordingRun: 1) == "succeeded")
        #expect(Self.run(id: 1, status: "failed").state(recordingRun: 1) == "failed")
    }

    /// Run 1 fails, run 2 succeeds, then run 1 is resumed: while it runs, a reader (another
    /// journal handle, so another lock holder, as `sequencer serve` or `runs` is) sees run 1
    /// running and run 2 as it ended; once it ends, nothing is recorded and run 1 succeeded.
    @Test func aResumedOlderRunIsTheRecordedOne() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        let journal = try SQLiteJournal(path: path)
        let gate = Gate()
        let fail = Locked(true)
        func workflow(waiting: Bool) throws -> Workflow {
            var workflow = Workflow()
            try workflow.add("a") { _ in
                if waiting { await gate.wait() }
                if fail.withLock({ $0 }) { throw Flaky() }
            }
            return workflow
        }
        let first = try await workflow(waiting: false).start(RunOptions(recorder: try journal.beginRun(workflow: "w"))).report()
        #expect(first.status == .failed)
        fail.withLock { $0 = false }
        #expect(try await workflow(waiting: false).start(RunOptions(recorder: try journal.beginRun(workflow: "w"))).report().status == .succeeded)

        let reader = try SQLiteJournal(readingOnly: path)
        #expect(try reader.recordingRun() == nil)
        let resumed = try workflow(waiting: true).start(RunOptions(recorder: try journal.resumeRun(1)))
        await gate.arrivals(atLeast: 1)
        #expect(try reader.recordingRun() == 1)
        let during = try reader.runs(limit: 10).map { ($0.id, $0.state(recordingRun: try reader.recordingRun())) }
        #expect(during.map(\.0) == [2, 1])
        #expect(during.map(\.1) == ["succeeded", "running"])

        gate.open()
        #expect(await resumed.report().status == .succeeded)
        #expect(try reader.recordingRun() == nil)
        #expect(try reader.run(1)?.state(recordingRun: try reader.recordingRun()) == "succeeded")
    }

    /// A lock file that names no run (a `sequencer` from before runs were named): the newest
    /// run is the recorded one, as it was then.
    @Test func aLockThatNamesNoRunMeansTheNewest() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        let journal = try SQLiteJournal(path: path)
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        for _ in 0..<2 { _ = try await workflow.start(RunOptions(recorder: try journal.beginRun(workflow: "w"))).report() }
        let writer = try SQLiteJournal(path: path)
        let holder = try writer.lock.acquire(journal: path)
        defer { writer.lock.release(holder) }
        let reader = try SQLiteJournal(readingOnly: path)
        #expect(try reader.recordingRun() == 2)
        writer.lock.name(run: 1, holder: holder)
        #expect(try reader.recordingRun() == 1)
    }

    /// A reader opened as a first run makes the journal (`sequencer serve` started with it; CI
    /// run 66) finds an empty file, then one stamped and not yet migrated: it waits for the
    /// journal to be made, rather than call it another program's database or an old schema.
    @Test func aReaderWaitsForAJournalBeingMade() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let reading = Task.detached { try SQLiteJournal(readingOnly: path) }
        let journal = try SQLiteJournal(path: path)
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        _ = try await workflow.start(RunOptions(recorder: try journal.beginRun(workflow: "w"))).report()
        let reader = try await reading.value
        #expect(try reader.runs(limit: 10).map(\.id) == [1])
    }

    /// A journal left unmade (its maker stopped, or still at it when the reader's patience ends)
    /// is reported as such.
    @Test func aJournalLeftUnmadeIsReportedAsBeingMade() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let error = #expect(throws: JournalError.self) { try SQLiteJournal(readingOnly: path, patience: 0) }
        #expect(error?.message.contains("still being created") == true)
    }
}
