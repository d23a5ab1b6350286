import Foundation
import Sequencer
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Every schema version ever released opens: each has a fixture file, written by that
/// version, that is migrated to the current one. A journal this build cannot read is refused
/// and left as it was.
@Suite struct MigrationTests {
    /// A copy of a fixture in a temporary directory (the original stays as it is).
    func copy(_ fixture: String, into directory: TemporaryDirectory) throws -> String {
        let source = try #require(Bundle.module.path(forResource: fixture, ofType: nil, inDirectory: "Fixtures"))
        let path = directory.file(fixture)
        try FileManager.default.copyItem(atPath: source, toPath: path)
        return path
    }

    @Test func aVersion1JournalIsMigratedAndItsRunsStillResume() async throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: try copy("journal-v1.sqlite", into: directory))
        #expect(try journal.schemaVersion() == 5)
        #expect(try journal.integrityProblems() == [])

        let runs = try journal.runs()
        #expect(runs.map(\.id) == [2, 1])
        #expect(runs.map(\.status) == ["running", "failed"])
        #expect(try journal.jobs(of: 1).map(\.name) == ["a", "b", "c"])
        #expect(try journal.jobs(of: 1).last?.error == "Flaky()")
        #expect(try journal.attempts(of: 1).isEmpty)  // version 1 kept no attempts

        // Resuming run 1 restores a (Void) and b (its JSON result), and runs c again.
        let calls = CallLog()
        var workflow = Workflow()
        try workflow.add("a") { _ in calls.called("a") }
        let b = try workflow.add("b", needs: ["a"]) { _ in
            calls.called("b")
            return Config(name: "new", limit: 99)
        }
        try workflow.add("c", needs: ["b"]) { ctx in
            calls.called("c")
            let config = try await ctx.value(of: b)
            #expect(config == Config(name: "b", limit: 1))
        }
        let recorder = try journal.resumeRun(1)
        let report = try await workflow.start(RunOptions(recorder: recorder)).report()
        #expect(report.status == .succeeded)
        #expect(calls.calls("a") == 0 && calls.calls("b") == 0 && calls.calls("c") == 1)
        #expect(try journal.run(1)?.status == "succeeded")
        #expect(try journal.run(1)?.sessions == 2)
    }

    /// `journal-v2.sqlite`: written by the `sequencer` of schema version 2 (commit 197a6f3),
    /// two `run --keep-going` runs of a file whose jobs `gen` and `use` succeed (then are up
    /// to date) and `fails` exits 3; its WAL checkpointed into the file.
    @Test func aVersion2JournalIsMigratedWithItsRunsAndFingerprints() async throws {
        let directory = try TemporaryDirectory()
        let journal = try SQLiteJournal(path: try copy("journal-v2.sqlite", into: directory))
        #expect(try journal.schemaVersion() == 5)
        #expect(try journal.integrityProblems() == [])
        let workflow = "/tmp/v2fix/sequencer.yml"
        #expect(try journal.runs().map(\.id) == [2, 1])
        #expect(try journal.runs().map(\.status) == ["failed", "failed"])
        #expect(try journal.jobs(of: 2).map(\.status).sorted() == ["failed", "upToDate", "upToDate"])
        #expect(try journal.attempts(of: 1).map(\.job) == ["fails", "gen", "use"])
        #expect(try journal.fingerprints(workflow: workflow).keys.sorted() == ["gen", "use"])
        // The new table, and its triggers on the fingerprints written by the older version.
        #expect(try journal.upToDateState(workflow: workflow) == nil)
        try journal.beginRun(workflow: workflow).recordUpToDateRun(jobs: ["gen", "use"], checked: [], duration: .zero, state: [7])
        #expect(try journal.upToDateState(workflow: workflow) == [7])
        let recorder = try journal.beginRun(workflow: workflow)
        var again = Workflow()
        try again.add("gen") { _ in recorder.recordFingerprint(job: "gen", fingerprint: "new", parts: [:], outputs: [:]) }
        #expect(try await again.start(RunOptions(recorder: recorder)).report().status == .succeeded)
        #expect(try journal.upToDateState(workflow: workflow) == nil)
    }

    /// `journal-v3.sqlite`: written by the `sequencer` of schema version 3 (commit b1022e0), the
    /// same two runs as the version 2 fixture (`gen` then `use` succeed, then are up to date;
    /// `fails` exits 3); its WAL checkpointed into the file.
    @Test func aVersion3JournalIsMigratedAndItsRunsSayTheirReasonsAreNotKnown() async throws {
        let directory = try TemporaryDirectory()
        let path = try copy("journal-v3.sqlite", into: directory)
        // Read without migrating (as the web page reads), it has no reasons and says so.
        let unmigrated = try SQLiteJournal(readingOnly: path)
        #expect(try unmigrated.jobChecks(of: 1) == JournalJobChecks(jobs: [:], checked: nil))
        #expect(try unmigrated.schemaVersion() == 3)

        let journal = try SQLiteJournal(path: path)
        #expect(try journal.schemaVersion() == 5)
        #expect(try journal.integrityProblems() == [])
        let workflow = "/tmp/v3fix/sequencer.yml"
        #expect(try journal.runs().map(\.status) == ["failed", "failed"])
        #expect(try journal.jobs(of: 2).map(\.status).sorted() == ["failed", "upToDate", "upToDate"])
        #expect(try journal.fingerprints(workflow: workflow).keys.sorted() == ["gen", "use"])
        #expect(try journal.jobChecks(of: 2) == JournalJobChecks(jobs: [:], checked: nil))

        // Resuming run 2 adds a session that records its reasons; the first session's stay unknown.
        let recorder = try journal.resumeRun(2)
        recorder.willRecordChecks()
        var again = Workflow()
        try again.add("fails") { _ in recorder.recordCheck(job: "fails", fingerprint: "f1", reason: "it declares no outputs, so it always runs") }
        try again.add("gen") { _ in }
        try again.add("use", needs: ["gen"]) { _ in }
        #expect(try await again.start(RunOptions(recorder: recorder)).report().status == .succeeded)
        #expect(try journal.jobChecks(of: 2) == JournalJobChecks(
            jobs: ["fails": .init(fingerprint: "f1", reason: "it declares no outputs, so it always runs")], checked: true))
        #expect(try journal.jobChecks(of: 1).checked == nil)
    }

    /// `journal-v4.sqlite`: written by the `sequencer` of schema version 4 (commit 7895d35), the
    /// same two runs again, with their checks; its WAL checkpointed into the file.
    @Test func aVersion4JournalIsMigratedKeepingItsChecksAndItsRunsHaveNoGraph() async throws {
        let directory = try TemporaryDirectory()
        let path = try copy("journal-v4.sqlite", into: directory)
        // Read without migrating (as the web page reads), it has checks and no graphs.
        let unmigrated = try SQLiteJournal(readingOnly: path)
        let run = try #require(try unmigrated.run(2))
        #expect(try unmigrated.graph(of: run) == nil)
        #expect(try unmigrated.jobChecks(of: 1).jobs["gen"]?.reason == "no earlier success is recorded")

        let journal = try SQLiteJournal(path: path)
        #expect(try journal.schemaVersion() == 5)
        #expect(try journal.integrityProblems() == [])
        let reasons: [String: String?] = ["fails": "it declares no outputs, so it always runs", "gen": nil, "use": nil]
        #expect(try journal.jobChecks(of: 2).jobs.mapValues(\.reason) == reasons)
        #expect(try journal.graph(of: run) == nil)

        // A session after the migration keeps its graph; the earlier runs still have none.
        let recorder = try journal.resumeRun(2)
        let graph = HistoryGraph(lanes: [], jobs: [.init(name: "fails", needs: [], lane: nil, run: "true", directory: nil)])
        recorder.recordGraph(graph)
        var again = Workflow()
        try again.add("fails") { _ in }
        #expect(try await again.start(RunOptions(recorder: recorder)).report().status == .succeeded)
        #expect(try journal.graph(of: try #require(try journal.run(2))) == graph)
        #expect(try journal.graph(of: try #require(try journal.run(1))) == nil)
    }

    @Test func migratingTwiceChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = try copy("journal-v1.sqlite", into: directory)
        _ = try SQLiteJournal(path: path)
        let once = try SQLiteJournal(path: path).runs()
        let twice = try SQLiteJournal(path: path).runs()
        #expect(once == twice)
    }

    @Test func aJournalFromANewerSequencerIsRefusedAndLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let path = try copy("journal-v1.sqlite", into: directory)
        _ = try SQLiteJournal(path: path)
        try setUserVersion(99, path: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: JournalError.self) { try SQLiteJournal(path: path) }
        #expect(error?.code == .newerVersion)
        #expect(error?.message.contains("schema version 99") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test(arguments: [
        ("text", Data("this is not a database\n".utf8), "not an SQLite database"),
        ("header then noise", Data("SQLite format 3\0".utf8) + Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }), "is damaged"),
    ])
    func aFileThatIsNotAJournalIsRefusedAndLeftAlone(name: String, contents: Data, message: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        try contents.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: JournalError.self, "\(name)") { try SQLiteJournal(path: path) }
        #expect(error?.code == .damaged)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
    }

    @Test func anotherProgramsDatabaseIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("other.sqlite")
        try makeDatabase(path, sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        let error = #expect(throws: JournalError.self) { try SQLiteJournal(path: path) }
        #expect(error?.message.contains("another program") == true)
    }

    @Test func aTruncatedJournalIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try copy("journal-v1.sqlite", into: directory)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count / 3 + 100).write(to: URL(fileURLWithPath: path))
        do {
            let journal = try SQLiteJournal(path: path)
            // Opening may succeed when the damage lies in pages not read yet: reading finds it.
            #expect(throws: JournalError.self) { _ = try journal.jobs(of: 1); _ = try journal.runs() }
        } catch let error as JournalError {
            #expect(error.code == .damaged)
        }
    }
}

import GRDB
import SequencerHistory

/// Sets `PRAGMA user_version` as a newer Sequencer would.
func setUserVersion(_ version: Int, path: String) throws {
    let database = try DatabaseQueue(path: path)
    try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = \(version)") }
    try database.close()
}

func makeDatabase(_ path: String, sql: String) throws {
    let database = try DatabaseQueue(path: path)
    try database.write { try $0.execute(sql: sql) }
    try database.close()
}
