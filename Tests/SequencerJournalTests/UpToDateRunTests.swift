import Foundation
import Sequencer
@testable import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A run that started nothing, every job being up to date (`JournalRecorder.recordUpToDateRun`):
/// recorded as a run of the library whose every job ended up to date would be.
@Suite struct UpToDateRunTests {
    @Test func itLeavesWhatARunOfUpToDateJobsLeaves() async throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        let names: [JobID] = ["a", "b", "c"]

        // The same jobs through the library, each marking itself up to date.
        var workflow = Workflow()
        for (index, name) in names.enumerated() {
            try workflow.add(name, needs: index > 0 ? [names[index - 1]] : []) { context in context.markUpToDate() }
        }
        let library = try journal.beginRun(workflow: "w", info: "{}")
        #expect(try await workflow.start(RunOptions(recorder: library)).report().status == .succeeded)

        let recorder = try journal.beginRun(workflow: "w", info: "{}")
        let checked = names.indices.map { (start: Duration.milliseconds($0), end: Duration.milliseconds($0 + 1)) }
        try recorder.recordUpToDateRun(jobs: names, checked: checked, duration: .milliseconds(5))
        #expect(recorder.runID == library.runID + 1)

        let (expected, recorded) = (try #require(try journal.run(library.runID)), try #require(try journal.run(recorder.runID)))
        #expect(recorded.status == expected.status && recorded.status == "succeeded")
        #expect(recorded.jobCount == 3 && recorded.skipped == expected.skipped && recorded.skipped == 3)
        #expect(recorded.succeeded == expected.succeeded && recorded.failed == 0 && recorded.sessions == 1)
        #expect(recorded.info == "{}" && recorded.workflow == "w")
        #expect(recorded.duration == 0.005)
        let jobs = try journal.jobs(of: recorder.runID)
        let libraryJobs = try journal.jobs(of: library.runID)
        #expect(jobs.map(\.name) == libraryJobs.map(\.name))
        #expect(jobs.map(\.status) == libraryJobs.map(\.status))
        #expect(jobs.allSatisfy { $0.status == "upToDate" && $0.attempts == 1 && $0.code == nil })
        #expect(jobs.map(\.position) == [0, 1, 2])
        #expect(jobs.map { $0.duration } == [0.001, 0.001, 0.001])
        #expect(try #require(jobs[1].startedAt) == recorded.startedAt + 1_000_000)

        // The writer lock is let go: another run can begin. The recorder cannot record again.
        let next = try journal.beginRun(workflow: "w")
        next.close()
        #expect(throws: JournalError.self) { try recorder.recordUpToDateRun(jobs: names, checked: [], duration: .zero) }
        // A resume of it finds every job done.
        let resumed = try journal.resumeRun(recorder.runID)
        var again = Workflow()
        let calls = CallLog()
        for name in names { try again.add(name) { _ in calls.called(name) } }
        #expect(try await again.start(RunOptions(recorder: resumed)).report().status == .succeeded)
        #expect(calls.calls("a") == 0 && calls.calls("b") == 0 && calls.calls("c") == 0)
    }

    @Test func aResumingRecorderRefusesIt() throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        let first = try journal.beginRun(workflow: "w")
        try first.recordUpToDateRun(jobs: ["a"], checked: [], duration: .zero)
        #expect(try journal.jobs(of: first.runID).map { $0.startedAt } == [nil], "no time given, none recorded")
        let resumed = try journal.resumeRun(first.runID)
        defer { resumed.close() }
        #expect(throws: JournalError.self) { try resumed.recordUpToDateRun(jobs: ["a"], checked: [], duration: .zero) }
    }

    /// The state a no-op run keeps lasts until any fingerprint of its workflow is written, by
    /// any writer (a trigger drops it); another workflow's fingerprints leave it alone.
    @Test func itsStateLastsUntilAFingerprintOfItsWorkflowIsWritten() async throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        let state: [UInt8] = [1, 2, 3, 0, 255]
        for workflow in ["w", "other"] {
            try journal.beginRun(workflow: workflow).recordUpToDateRun(jobs: ["a"], checked: [], duration: .zero, state: state)
            #expect(try journal.upToDateState(workflow: workflow) == state)
        }
        #expect(try journal.upToDateState(workflow: "none") == nil)
        // A run without a state keeps the one kept.
        try journal.beginRun(workflow: "w").recordUpToDateRun(jobs: ["a"], checked: [], duration: .zero)
        #expect(try journal.upToDateState(workflow: "w") == state)

        let recorder = try journal.beginRun(workflow: "w")
        var workflow = Workflow()
        try workflow.add("a") { _ in recorder.recordFingerprint(job: "a", fingerprint: "f", parts: ["command": "c"], outputs: [:]) }
        #expect(try await workflow.start(RunOptions(recorder: recorder)).report().status == .succeeded)
        #expect(try journal.upToDateState(workflow: "w") == nil)
        #expect(try journal.upToDateState(workflow: "other") == state)
    }

    /// Every job checked at one moment (as a no-op run decides them) is one short row, read
    /// back as the records of a row per job would be.
    @Test func jobsCheckedAtOnceAreOneShortRowReadAsRecords() throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        let names: [JobID] = ["a", "b", "c"]
        let moment = (start: Duration.milliseconds(2), end: Duration.milliseconds(2))
        let spread = try journal.beginRun(workflow: "w")
        try spread.recordUpToDateRun(jobs: names, checked: [moment, moment, (moment.start, .milliseconds(3))], duration: .milliseconds(5))
        let once = try journal.beginRun(workflow: "w")
        try once.recordUpToDateRun(jobs: names, checked: [moment, moment, moment], duration: .milliseconds(5))

        let packed = JobLog.packUpToDate(count: 3, startedAt: 2_000_000, endedAt: 2_000_000)
        #expect(packed.count == 24 && packed.count % JobLog.Record.size != 0)
        #expect(JobLog.unpack(packed)?.map(\.position) == [0, 1, 2])
        let (a, b) = (try journal.jobs(of: spread.runID), try journal.jobs(of: once.runID))
        #expect(b.map(\.name) == ["a", "b", "c"] && b.map(\.position) == [0, 1, 2])
        #expect(b.allSatisfy { $0.status == "upToDate" && $0.attempts == 1 })
        #expect(a.map(\.status) == b.map(\.status) && a.map(\.attempts) == b.map(\.attempts))
        let run = try #require(try journal.run(once.runID))
        #expect(b.map(\.startedAt) == [Int64?](repeating: run.startedAt + 2_000_000, count: 3))
        #expect(b.map { $0.duration } == [0, 0, 0])
        #expect(run.skipped == 3)
    }
}
