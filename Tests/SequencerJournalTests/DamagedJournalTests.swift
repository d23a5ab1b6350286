import Foundation
import GRDB
import Sequencer
@testable import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A journal SQLite finds damaged: every open, read and write says so with the path, nothing
/// is written into it, and it can be checked and set aside.
@Suite struct DamagedJournalTests {
    /// A journal with three recorded runs, ended (and so checkpointed into its main file).
    func recordedJournal(in directory: TemporaryDirectory) async throws -> String {
        let path = directory.file("journal.sqlite")
        let journal = try SQLiteJournal(path: path)
        for _ in 0..<3 {
            var workflow = Workflow()
            try workflow.add("a") { _ in "a" }
            try workflow.add("b", needs: ["a"]) { _ in "b" }
            let recorder = try journal.beginRun(workflow: "test")
            #expect(try await workflow.start(RunOptions(recorder: recorder)).report().status == .succeeded)
        }
        return path
    }

    /// Overwrites the root page of `table` (a table of a few rows has no other page).
    func damage(_ table: String, of path: String) throws {
        let root = try DatabaseQueue(path: path).read { db in
            try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table])
        }
        try SQLiteDamage.overwritePage(try #require(root), of: path)
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func readingAndWritingADamagedTableSayTheFileIsDamagedAndWriteNothing() async throws {
        let directory = try TemporaryDirectory()
        let path = try await recordedJournal(in: directory)
        try damage("runs", of: path)
        let before = try bytes(path)
        do {
            // The open reads the schema only, which is whole.
            let journal = try SQLiteJournal(path: path)
            let read = #expect(throws: JournalError.self) { try journal.runs() }
            #expect(read?.code == .damaged)
            #expect(read?.description.contains(path) == true)
            #expect(read?.message.contains("sequencer gc --set-aside --journal \(path)") == true, "\(read?.message ?? "")")
            let write = #expect(throws: JournalError.self) { try journal.beginRun(workflow: "test") }
            #expect(write?.code == .damaged)
        }
        // Found once, refused at every later open, even by one that would read nothing damaged.
        let reopened = #expect(throws: JournalError.self) { try SQLiteJournal(path: path) }
        #expect(reopened?.code == .damaged)
        #expect(reopened?.description.contains(path) == true)
        #expect(throws: JournalError.self) { try SQLiteJournal(readingOnly: path) }
        #expect(try bytes(path) == before)
    }

    @Test func aDamagedSchemaIsRefusedAtTheOpen() async throws {
        let directory = try TemporaryDirectory()
        let path = try await recordedJournal(in: directory)
        try SQLiteDamage.overwritePage(1, of: path)
        let before = try bytes(path)
        let error = #expect(throws: JournalError.self) { try SQLiteJournal(path: path) }
        #expect(error?.code == .damaged)
        #expect(error?.message.contains("damaged") == true)
        #expect(error?.description.contains(path) == true)
        #expect(try bytes(path) == before)
    }

    @Test func aFileThatIsNotSQLiteIsDamagedAndLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("journal.sqlite", "these are notes, not a database\n")
        let before = try bytes(path)
        let error = #expect(throws: JournalError.self) { try SQLiteJournal(path: path) }
        #expect(error?.code == .damaged)
        #expect(error?.message.contains("not an SQLite database") == true)
        #expect(error?.message.contains("sequencer gc --set-aside") == true)
        #expect(try SQLiteJournal.check(path: path).isEmpty == false)
        #expect(try bytes(path) == before)
    }

    /// After a recorder's process died, the next writer checks the file before writing: damage
    /// in a table the run would not read first is found.
    @Test func aWriterAfterACrashChecksTheFileFirst() async throws {
        let directory = try TemporaryDirectory()
        let path = try await recordedJournal(in: directory)
        try damage("graphs", of: path)
        let before = try bytes(path)
        // What a recorder killed while it held the lock leaves: its process ID in the lock file.
        try Data("4194303\n".utf8).write(to: URL(fileURLWithPath: path + ".lock"))
        let journal = try SQLiteJournal(path: path)
        let error = #expect(throws: JournalError.self) { try journal.beginRun(workflow: "test") }
        #expect(error?.code == .damaged)
        #expect(try bytes(path) == before)
    }

    /// Damage found while a run records (here by a check in another process's place): the
    /// recorder stops writing, the run's jobs finish, and the recorder says why.
    @Test func aRecorderStopsWritingWhenTheFileIsFoundDamagedMidRun() async throws {
        let directory = try TemporaryDirectory()
        let path = try await recordedJournal(in: directory)
        try damage("graphs", of: path)
        var before = Data()
        do {
            let journal = try SQLiteJournal(path: path)
            let recorder = try journal.beginRun(workflow: "test")
            let gate = Gate()
            var workflow = Workflow()
            try workflow.add("a") { _ in await gate.wait() }
            let run = try workflow.start(RunOptions(recorder: recorder))
            // The run has started (and its start is written, in the write-ahead log); now the
            // damage is found.
            await gate.arrivals(atLeast: 1)
            #expect(try SQLiteJournal.check(path: path).isEmpty == false)
            before = try bytes(path)
            gate.open()
            let report = await run.report()
            #expect(report.status == .succeeded)
            #expect(recorder.writeError?.code == .damaged)
        }
        // The journal's connection has closed: what its log held was not copied into the file.
        #expect(try bytes(path) == before)
    }

    @Test func aRecorderThatEndsLeavesNoSignOfACrash() async throws {
        let directory = try TemporaryDirectory()
        let path = try await recordedJournal(in: directory)
        #expect(try bytes(path + ".lock").isEmpty)
    }

    @Test func theFullCheckTellsAHealthyFileFromADamagedOne() async throws {
        let directory = try TemporaryDirectory()
        let path = try await recordedJournal(in: directory)
        #expect(try SQLiteJournal.check(path: path) == [])
        try damage("job_log", of: path)
        let before = try bytes(path)
        #expect(try SQLiteJournal.check(path: path).isEmpty == false)
        #expect(try bytes(path) == before)
    }

    @Test func aDamagedJournalIsSetAsideAndANewOneStarts() async throws {
        let directory = try TemporaryDirectory()
        let path = try await recordedJournal(in: directory)
        #expect(try SQLiteJournal.setAside(path: path) == nil, "a healthy journal stays")
        #expect(FileManager.default.fileExists(atPath: path))
        try damage("runs", of: path)
        let before = try bytes(path)
        let result = try #require(try SQLiteJournal.setAside(path: path, now: Date(timeIntervalSince1970: 0)))
        #expect(result.damagedFile == path + ".damaged-19700101-000000")
        #expect(try bytes(result.damagedFile) == before)
        #expect(result.lost.contains { $0.hasPrefix("runs:") }, "\(result.lost)")
        #expect(result.recovered["runs"] ?? 0 == 0)
        // The sessions of the lost runs are left out with them: the new file is consistent.
        #expect(result.recovered["run_sessions"] ?? 0 == 0)
        let fresh = try SQLiteJournal(path: path)
        #expect(try fresh.integrityProblems() == [])
        #expect(try fresh.runs().isEmpty)
        #expect(try fresh.beginRun(workflow: "test").runID == 1)
    }

    /// What still reads is kept: with only the job records damaged, the runs and their
    /// sessions come back, and the next run is numbered after them.
    @Test func settingAsideKeepsTheRunsThatStillRead() async throws {
        let directory = try TemporaryDirectory()
        let path = try await recordedJournal(in: directory)
        try damage("job_log", of: path)
        _ = try SQLiteJournal.check(path: path)
        let result = try #require(try SQLiteJournal.setAside(path: path))
        #expect(result.recovered["runs"] == 3)
        #expect(result.lost.contains { $0.hasPrefix("job_log:") }, "\(result.lost)")
        let fresh = try SQLiteJournal(path: path)
        #expect(try fresh.integrityProblems() == [])
        #expect(try fresh.runs().map(\.id) == [3, 2, 1])
        #expect(try fresh.beginRun(workflow: "test").runID == 4)
    }
}
