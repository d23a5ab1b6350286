import Foundation
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Reading a journal for a dry run changes nothing in its directory: not the journal, and no
/// `-wal` or `-shm` file, whether the journal is current, older (migrated in a copy) or absent.
@Suite struct JournalSnapshotTests {
    private func files(in directory: TemporaryDirectory) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) {
            files[name] = try Data(contentsOf: directory.url.appendingPathComponent(name))
        }
        return files
    }

    @Test func aCurrentJournalIsReadInPlaceAndLeftAsItWas() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        do { _ = try SQLiteJournal(path: path) }  // created, then closed
        let before = try files(in: directory)
        let snapshot = try #require(try JournalSnapshot.read(path: path, workflow: "w"))
        #expect(snapshot.fingerprints.isEmpty)
        #expect(try files(in: directory) == before)
    }

    @Test func anOlderJournalIsReadFromAMigratedCopy() throws {
        let directory = try TemporaryDirectory()
        let source = try #require(Bundle.module.path(forResource: "journal-v1.sqlite", ofType: nil, inDirectory: "Fixtures"))
        let path = directory.file("journal.sqlite")
        try FileManager.default.copyItem(atPath: source, toPath: path)
        let before = try files(in: directory)
        #expect(try JournalSnapshot.read(path: path, workflow: "w") != nil)
        #expect(try files(in: directory) == before)
    }

    @Test func noJournalIsNoSnapshotAndAForeignFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        #expect(try JournalSnapshot.read(path: directory.file("journal.sqlite"), workflow: "w") == nil)
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: directory.file("other.sqlite")))
        #expect(throws: JournalError.self) { try JournalSnapshot.read(path: directory.file("other.sqlite"), workflow: "w") }
        // The file is left as it was; beside it, the marker that it was found damaged.
        #expect(try files(in: directory).keys.sorted() == ["other.sqlite", "other.sqlite.damage"])
    }
}
