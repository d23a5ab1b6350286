import Foundation
import GRDB
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// The queue's file: what is refused and left untouched, and what a clean exit leaves.
@Suite struct StoreFileTests {
    @Test func aFileThatIsNotAQueueIsRefusedAndLeftUntouched() async throws {
        let directory = try TemporaryDirectory()
        let garbage = try directory.write("garbage.sqlite", "this is not a database at all, just text\n")
        let before = try Data(contentsOf: URL(fileURLWithPath: garbage))
        let error = #expect(throws: QueueError.self) { try SQLiteQueueStore(path: garbage) }
        #expect(error?.code == .unreadable)
        #expect(error?.description.contains(garbage) == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: garbage)) == before)

        let other = directory.file("other.sqlite")
        try await DatabaseQueue(path: other).write { try $0.execute(sql: "CREATE TABLE notes (text TEXT)") }
        let otherBefore = try Data(contentsOf: URL(fileURLWithPath: other))
        #expect((#expect(throws: QueueError.self) { try SQLiteQueueStore(path: other) })?.code == .unreadable)
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == otherBefore)
    }

    /// Workers started together on a new file all open it: one creates the schema, the others
    /// find it made (found by `sequencer run --queue` and `sequencer worker` started at once).
    @Test func processesOpeningANewFileAtOnceAllOpenIt() async throws {
        let directory = try TemporaryDirectory()
        for round in 0..<5 {
            let path = directory.file("q-\(round).sqlite")
            // The opens block their threads (SQLite waits for its locks): each on a thread of its
            // own, never on the threads that run every test's tasks (see `onOwnThread`).
            let failures = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        await onOwnThread {
                            do {
                                _ = try SQLiteQueueStore(path: path)
                                return nil
                            } catch {
                                return "\(error)"
                            }
                        }
                    }
                }
                return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
            }
            #expect(failures.isEmpty, "round \(round)")
            #expect(try SQLiteQueueStore(path: path).schemaVersion() == QueueSchema.current)
        }
    }

    @Test func aNewerQueueIsRefusedAndLeftUntouched() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("q.sqlite")
        let store = try SQLiteQueueStore(path: path)
        try await store.close()
        try await DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 99") }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: QueueError.self) { try SQLiteQueueStore(path: path) }
        #expect(error?.code == .newerVersion)
        #expect(error?.message.contains("99") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aDamagedQueueIsRefusedWithItsPath() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("q.sqlite")
        let store = try SQLiteQueueStore(path: path)
        _ = try await store.enqueue([StoreSteps.job()], now: 0)
        try await store.close()
        // Keep the header, wreck the rest.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for index in 100..<bytes.count { bytes[index] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: QueueError.self) {
            let store = try SQLiteQueueStore(path: path)
            _ = try store.schemaVersion()
        }
        #expect(error?.code == .unreadable || error?.code == .database)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func aCleanCloseLeavesEverythingInTheMainFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("q.sqlite")
        let store = try SQLiteQueueStore(path: path)
        let ids = try await store.enqueue((0..<50).map { _ in StoreSteps.job() }, now: 0)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        try await store.close()
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(wal == 0, "the WAL was checkpointed into the main file")
        // The main file alone is a complete copy.
        let copy = directory.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let reopened = try SQLiteQueueStore(path: copy)
        #expect(try await reopened.counts() == [.available: 50])
        #expect(try await reopened.job(ids[49])?.state == .available)
        #expect(try reopened.integrityProblems().isEmpty)
    }

    /// A damaged file is refused at the open (checked there: a queue's work matters), with its
    /// path and the commands that recover what can be read; nothing is written to it.
    @Test func aDamagedQueueIsRefusedAtTheOpenAndNamesTheWayToRecover() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("q.sqlite")
        let store = try SQLiteQueueStore(path: path)
        _ = try await store.enqueue((0..<5).map { _ in StoreSteps.job() }, now: 0)
        try await store.close()
        let root = try await DatabaseQueue(path: path).read { db in
            try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'jobs'")
        }
        try SQLiteDamage.overwritePage(try #require(root), of: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for attempt in ["finds it", "is told by the marker"] {
            let error = await #expect(throws: QueueError.self, "\(attempt)") {
                _ = try await DurableQueue(store: .sqlite(path: path))
            }
            #expect(error?.location == path)
            #expect(error?.message.contains("damaged") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("sequencer gc --recover --queue \(path)") == true, "\(error?.message ?? "")")
        }
        #expect(FileManager.default.fileExists(atPath: path + ".damage"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
