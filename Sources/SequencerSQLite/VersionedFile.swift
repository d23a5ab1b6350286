import Foundation
package import GRDB

/// A Sequencer SQLite file (a journal, a durable queue): recognised by its `application_id`,
/// versioned by `user_version` and a GRDB migrator. Opening one refuses what is not SQLite, what
/// is another program's database and what a newer Sequencer wrote, and leaves those untouched;
/// it migrates what is older.
package struct VersionedFile: Sendable {
    /// Why a file cannot be opened. Each owner turns it into its own error, in its own words.
    package enum Problem: Error {
        /// The file does not start with SQLite's header.
        case notSQLite
        /// An SQLite database with tables and another application ID.
        case foreign
        /// Written by a newer Sequencer: its schema version, or a migration this one lacks.
        case newer(version: Int)
        /// SQLite found it damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
        case damaged(String)
        /// Opening or migrating it failed every time, for another reason (a read-only file, a
        /// full disk): SQLite's words.
        case unusable(String)
    }

    package let applicationID: Int32
    /// The schema version this Sequencer writes.
    package let current: Int
    package let migrator: DatabaseMigrator

    package init(applicationID: Int32, current: Int, migrator: DatabaseMigrator) {
        self.applicationID = applicationID
        self.current = current
        self.migrator = migrator
    }

    /// Throws ``Problem/notSQLite`` unless the file at `path` is missing, empty or starts with
    /// SQLite's header: checked before SQLite opens it, which could otherwise write to it.
    package static func checkHeader(_ path: String) throws(Problem) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if !header.isEmpty, header != Data("SQLite format 3\0".utf8) { throw .notSQLite }
    }

    /// Checks the open database, switches it to WAL, stamps a new one with the application ID,
    /// and runs the migrations it lacks (each in a transaction: a crash leaves the file at a
    /// version).
    ///
    /// Processes that open a new or older file at the same moment may all try to create or
    /// migrate it, and see its schema change under them: a statement fails ("table ... already
    /// exists", "no such table"), its transaction rolls back, and the open is tried again from
    /// the start, which finds the others' work done. A file that fails every time is unusable;
    /// a file SQLite calls damaged is not tried again.
    package func open(_ database: DatabaseQueue) throws(Problem) {
        var tries = 0
        while true {
            do {
                try openOnce(database)
                return
            } catch let problem as Problem {
                throw problem
            } catch where Damage.isDamage(error) {
                // SQLite's own word: trying again would only read the same damage.
                throw .damaged(Self.describe(error))
            } catch {
                tries += 1
                if tries >= 5 { throw .unusable(Self.describe(error)) }
            }
        }
    }

    private func openOnce(_ database: DatabaseQueue) throws {
        let needsMigration = try database.writeWithoutTransaction { db -> Bool in
            var needsMigration = false
            // One transaction, holding the write lock: what it reads is one state of the file,
            // and a new file is stamped before anyone else looks.
            try db.inTransaction(.immediate) {
                let foundID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                if foundID != applicationID, tables > 0 { throw Problem.foreign }
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                let superseded = try migrator.hasBeenSuperseded(db)
                if version > current || superseded { throw Problem.newer(version: version) }
                if tables == 0 { try db.execute(sql: "PRAGMA application_id = \(applicationID)") }
                needsMigration = try !migrator.hasCompletedMigrations(db)
                return .commit
            }
            // Outside a transaction (SQLite cannot change it inside one); once the file is known
            // to be ours.
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            return needsMigration
        }
        if needsMigration {
            try migrator.migrate(database)
            try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = \(current)") }
        }
    }

    /// SQLite's message for an error, or the error's description.
    package static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? error.resultCode.description }
        return "\(error)"
    }
}

extension VersionedFile.Problem: CustomStringConvertible {
    /// The problem in words, for a message that names the file.
    package var description: String {
        switch self {
        case .notSQLite: "not an SQLite database"
        case .foreign: "an SQLite database of another program"
        case .newer(let version): "schema version \(version), newer than this Sequencer knows"
        case .damaged(let reason), .unusable(let reason): reason
        }
    }
}
