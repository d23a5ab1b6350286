import Foundation
internal import GRDB

/// Opening a queue's SQLite file: refusing what is not a queue or is newer, migrating what is
/// older.
enum StoreFile {
    /// A SQLite file starts with this header; an empty file is a new database.
    static func checkHeader(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if !header.isEmpty, header != Data("SQLite format 3\0".utf8) {
            throw QueueError(code: .unreadable, location: path, message: "not a Sequencer queue (not an SQLite database); it was left untouched")
        }
    }

    static func open(_ database: DatabaseQueue, path: String) throws {
        let migrator = QueueSchema.migrator()
        do {
            let needsMigration = try database.writeWithoutTransaction { db -> Bool in
                let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                if applicationID != QueueSchema.applicationID, tables > 0 {
                    throw QueueError(code: .unreadable, location: path, message: "not a Sequencer queue (an SQLite database of another program); it was left untouched")
                }
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                let superseded = try migrator.hasBeenSuperseded(db)
                if version > QueueSchema.current || superseded {
                    throw QueueError(
                        code: .newerVersion, location: path,
                        message: "the queue has schema version \(version), newer than this Sequencer knows (\(QueueSchema.current)); use a newer Sequencer; the file was left untouched")
                }
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                if tables == 0 { try db.execute(sql: "PRAGMA application_id = \(QueueSchema.applicationID)") }
                return try !migrator.hasCompletedMigrations(db)
            }
            if needsMigration {
                // Each migration runs in a transaction: a crash leaves the file at a version.
                try migrator.migrate(database)
                try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = \(QueueSchema.current)") }
            }
        } catch let error as QueueError {
            throw error
        } catch {
            throw QueueError(code: .unreadable, location: path, message: "cannot read the queue (it is damaged, or not a queue): \(SQLiteQueueStore.describe(error)); it was left untouched")
        }
    }
}
