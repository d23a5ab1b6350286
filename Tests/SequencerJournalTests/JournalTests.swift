import Foundation
import Sequencer
@testable import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing
import SequencerHistory

struct Config: Codable, Sendable, Equatable {
    var name: String
    var limit: Int
}

struct NotCodable: Sendable {
    var value: Int
}

struct Flaky: Error {}

@Suite struct JournalTests {
    /// a -> b -> c, with c failing while `failC` is true; b returns a Codable value and d a
    /// value that is not Codable.
    func workflow(calls: CallLog, failC: Bool) throws -> Workflow {
        var workflow = Workflow()
        try workflow.add("a") { _ in calls.called("a") }
        let b = try workflow.add("b", needs: ["a"]) { _ in
            calls.called("b")
            return Config(name: "b", limit: calls.calls("b"))
        }
        try workflow.add("d") { _ in
            calls.called("d")
            return NotCodable(value: 7)
        }
        try workflow.add("c", needs: ["b", "d"]) { ctx in
            calls.called("c")
            if failC { throw Flaky() }
            let config = try await ctx.value(of: b)
            #expect(config == Config(name: "b", limit: 1))  // restored from the first run
        }
        return workflow
    }

    @Test func aResumedRunRestoresWhatSucceededAndRunsTheRest() async throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        let calls = CallLog()

        let recorder = try journal.beginRun(workflow: "test")
        let first = try await workflow(calls: calls, failC: true).start(RunOptions(recorder: recorder)).report()
        #expect(first.status == .failed)
        let run = try #require(try journal.run(recorder.runID))
        #expect(run.status == "failed")
        #expect(run.succeeded == 3 && run.failed == 1 && run.jobCount == 4)
        let jobs = try journal.jobs(of: recorder.runID)
        #expect(jobs.map(\.name) == ["a", "b", "d", "c"])
        #expect(jobs.first { $0.name == "c" }?.error == "Flaky()")

        let resumed = try journal.resumeRun(recorder.runID)
        let second = try await workflow(calls: calls, failC: false).start(RunOptions(recorder: resumed)).report()
        #expect(second.status == .succeeded)
        // a and b were restored; d's value is not Codable, so it ran again; c ran again.
        #expect(calls.calls("a") == 1 && calls.calls("b") == 1 && calls.calls("d") == 2 && calls.calls("c") == 2)
        #expect(second.outcome(of: "a")?.restored == true)
        #expect(second.outcome(of: "a")?.attempts == 0)
        #expect(second.outcome(of: "d")?.restored == false)
        let after = try #require(try journal.run(recorder.runID))
        #expect(after.status == "succeeded" && after.sessions == 2 && after.succeeded == 4)
    }

    @Test func aRunIsRecordedBeforeItsReportIsDelivered() async throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        var workflow = Workflow()
        for job in 0..<500 {
            try workflow.add(JobID("job\(job)"), needs: job > 0 ? [JobID("job\(job - 1)")] : []) { _ in }
        }
        let recorder = try journal.beginRun(workflow: "chain")
        let report = try await workflow.start(RunOptions(recorder: recorder)).report()
        #expect(report.status == .succeeded)
        let jobs = try journal.jobs(of: recorder.runID)
        #expect(jobs.count == 500)
        #expect(jobs.allSatisfy { $0.status == "succeeded" && $0.attempts == 1 })
        // Each job started after the job it needs ended.
        for (need, job) in zip(jobs, jobs.dropFirst()) {
            #expect(try #require(job.startedAt) >= (try #require(need.endedAt)))
        }
        #expect(try journal.run(recorder.runID)?.status == "succeeded")
    }

    @Test func aFinishedRunLeavesTheJournalWholeInItsMainFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        let journal = try SQLiteJournal(path: path)
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        try workflow.add("b", needs: ["a"]) { _ in }
        let recorder = try journal.beginRun(workflow: "two")
        _ = try await workflow.start(RunOptions(recorder: recorder)).report()
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(wal == 0, "checkpointed into the main file when the run ended")
        let copy = directory.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let alone = try SQLiteJournal(path: copy)
        #expect(try alone.jobs(of: recorder.runID).map(\.status) == ["succeeded", "succeeded"])
    }

    @Test func anUpToDateJobHasItsOwnStatusAndItsDependentsRun() async throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        var workflow = Workflow()
        try workflow.add("fresh") { ctx in ctx.markUpToDate() }
        try workflow.add("after", needs: ["fresh"]) { _ in }
        let recorder = try journal.beginRun(workflow: "w")
        let report = try await workflow.start(RunOptions(recorder: recorder)).report()
        #expect(report.status == .succeeded)
        #expect(report.outcome(of: "fresh")?.status == .upToDate)
        #expect(report.outcome(of: "fresh")?.error == nil)
        #expect(report.outcome(of: "after")?.status == .succeeded)
        #expect(report.count(.upToDate) == 1 && report.count(.skipped) == 0 && report.count(.succeeded) == 1)
        let fresh = try journal.jobs(of: recorder.runID).first { $0.name == "fresh" }
        #expect(fresh?.status == "upToDate" && fresh?.code == nil)
    }

    @Test func aSecondWriterIsRefusedWhileTheFirstRecords() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        let journal = try SQLiteJournal(path: path)
        let recorder = try journal.beginRun(workflow: "w")
        let other = try SQLiteJournal(path: path)
        #expect(other.isRecordingElsewhere)
        let error = #expect(throws: JournalError.self) { try other.beginRun(workflow: "w") }
        #expect(error?.code == .busy)
        #expect(error?.message.contains("process \(ProcessInfo.processInfo.processIdentifier)") == true)
        recorder.close()
        #expect(!other.isRecordingElsewhere)
        try other.beginRun(workflow: "w").close()
    }

    /// A process forked while the lock is held (a command's supervisor, before its first
    /// system calls close what it inherited) holds a copy of the lock's descriptor: letting go
    /// must not wait for it. A `dup` shares the descriptor's lock as a fork's copy does.
    @Test func theLockGoesWhileACopyOfItsDescriptorLives() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        let journal = try SQLiteJournal(path: path)
        let recorder = try journal.beginRun(workflow: "w")
        let copy = dup(journal.lock.descriptor)
        try #require(copy >= 0)
        defer { close(copy) }
        recorder.close()
        let other = try SQLiteJournal(path: path)
        #expect(!other.isRecordingElsewhere)
        try other.beginRun(workflow: "w").close()
        try journal.beginRun(workflow: "w").close()
    }

    @Test func anEndedRecorderLetGoOfTheLockAndCannotTakeItFromTheNext() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        let journal = try SQLiteJournal(path: path)
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        var first: JournalRecorder? = try journal.beginRun(workflow: "w")
        _ = try await workflow.start(RunOptions(recorder: first)).report()
        let second = try journal.beginRun(workflow: "w")  // the first let go when its run ended
        first?.close()
        first = nil  // neither closing nor freeing the first lets go of the second's hold
        let other = try SQLiteJournal(path: path)
        #expect(other.isRecordingElsewhere)
        #expect(throws: JournalError.self) { try other.beginRun(workflow: "w") }
        second.close()
        #expect(!other.isRecordingElsewhere)
    }

    @Test func aRecorderRecordsOneRun() async throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        let recorder = try journal.beginRun(workflow: "w")
        _ = try await workflow.start(RunOptions(recorder: recorder)).report()
        let error = #expect(throws: JournalError.self) { try workflow.start(RunOptions(recorder: recorder)) }
        #expect(error?.message.contains("already recorded run #1") == true)
        #expect(try journal.runs().count == 1)
    }

    /// Checks, by session: a later session's check replaces an earlier one's; a session that
    /// checks nothing says so; a run found up to date in one pass checked everything, and its
    /// jobs' fingerprints are those of the last run that checked them.
    @Test func checksAreKeptBySessionAndSayWhetherAnythingWasChecked() async throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        let fail = Locked(true)
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        try workflow.add("b", needs: ["a"]) { _ in if fail.withLock({ $0 }) { throw Flaky() } }

        let recorder = try journal.beginRun(workflow: "w")
        recorder.willRecordChecks()
        recorder.recordCheck(job: "a", fingerprint: "a1", reason: "no earlier success is recorded")
        recorder.recordCheck(job: "b", fingerprint: "b1", reason: "no earlier success is recorded")
        #expect(try await workflow.start(RunOptions(recorder: recorder)).report().status == .failed)
        #expect(try journal.jobChecks(of: recorder.runID) == JournalJobChecks(
            jobs: ["a": .init(fingerprint: "a1", reason: "no earlier success is recorded"),
                   "b": .init(fingerprint: "b1", reason: "no earlier success is recorded")],
            checked: true))

        fail.withLock { $0 = false }
        let resumed = try journal.resumeRun(recorder.runID)
        resumed.willRecordChecks()
        resumed.recordCheck(job: "b", fingerprint: "b2", reason: "input b.txt changed")
        #expect(try await workflow.start(RunOptions(recorder: resumed)).report().status == .succeeded)
        let checks = try journal.jobChecks(of: recorder.runID).jobs
        #expect(checks.mapValues(\.fingerprint) == ["a": "a1", "b": "b2"] && checks["b"]?.reason == "input b.txt changed")

        let unchecked = try journal.beginRun(workflow: "w")
        _ = try await workflow.start(RunOptions(recorder: unchecked)).report()
        #expect(try journal.jobChecks(of: unchecked.runID) == JournalJobChecks(jobs: [:], checked: false))

        // Another workflow's run of the same job names, which does not count for this one's.
        let other = try journal.beginRun(workflow: "other")
        other.willRecordChecks()
        other.recordCheck(job: "a", fingerprint: "elsewhere", reason: nil)
        _ = try await workflow.start(RunOptions(recorder: other)).report()
        let upToDate = try journal.beginRun(workflow: "w")
        try upToDate.recordUpToDateRun(jobs: ["a", "b"], checked: [], duration: .zero)
        #expect(try journal.jobChecks(of: upToDate.runID) == JournalJobChecks(jobs: [:], checked: true))
        // Decided in one pass, its jobs have the fingerprints of their last checks.
        let run = try #require(try journal.run(upToDate.runID))
        #expect(try journal.fingerprints(of: ["a", "b", "c"], in: run) == ["a": "a1", "b": "b2"])

        // Deleting a run deletes its checks.
        _ = try journal.deleteRuns(keeping: 0)
        #expect(try journal.jobChecks(of: recorder.runID).jobs.isEmpty)
    }

    /// Graphs: kept once however many sessions name them; a session without one (a no-op
    /// run) has the last earlier one of its workflow; deleting the runs deletes the graphs.
    @Test func aGraphIsKeptOnceAndARunWithoutOneHasTheOneBefore() async throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        func graph(_ command: String) -> HistoryGraph {
            HistoryGraph(
                lanes: [.init(name: "net", width: 2)],
                jobs: [.init(name: "a", needs: [], lane: "net", run: command, directory: "sub")])
        }
        var runs: [Int64] = []
        for command in ["make a", "make a", "make a again"] {
            let recorder = try journal.beginRun(workflow: "w")
            recorder.recordGraph(graph(command))
            _ = try await workflow.start(RunOptions(recorder: recorder)).report()
            runs.append(recorder.runID)
        }
        let noOp = try journal.beginRun(workflow: "w")
        try noOp.recordUpToDateRun(jobs: ["a"], checked: [], duration: .zero)
        let other = try journal.beginRun(workflow: "other")
        _ = try await workflow.start(RunOptions(recorder: other)).report()

        func graphOf(_ id: Int64) throws -> HistoryGraph? { try journal.graph(of: try #require(try journal.run(id))) }
        #expect(try graphOf(runs[0]) == graph("make a") && graphOf(runs[1]) == graph("make a"))
        #expect(try graphOf(runs[2]) == graph("make a again"))
        #expect(try graphOf(noOp.runID) == graph("make a again"))
        #expect(try graphOf(other.runID) == nil)
        let runOne = try #require(try journal.run(runs[0])), runTwo = try #require(try journal.run(runs[1]))
        #expect(try journal.graphDigest(of: runOne) == journal.graphDigest(of: runTwo))

        // Deleting runs keeps the graphs that remaining sessions name, and only those.
        let firstRun = try #require(try journal.run(runs[0]))
        let lastRun = try #require(try journal.run(runs[2]))
        let first = try #require(try journal.graphDigest(of: firstRun))
        let last = try #require(try journal.graphDigest(of: lastRun))
        _ = try journal.deleteRuns(keeping: 2, workflow: "w")
        #expect(try journal.graph(digest: first) == nil && journal.graph(digest: last) == graph("make a again"))
        #expect(try graphOf(noOp.runID) == graph("make a again"))
        _ = try journal.deleteRuns(keeping: 0)
        #expect(try journal.graph(digest: last) == nil)
    }

    /// Up to date is stored as skipped with a flag (the record format predates the status).
    @Test func everyStatusCodeNamesItsStatus() {
        for status in JobStatus.allCases {
            #expect(JobLog.statuses[Int(JobLog.code(of: status))] == (status == .upToDate ? "skipped" : status.rawValue))
        }
    }
}
