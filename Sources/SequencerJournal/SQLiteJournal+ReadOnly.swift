import Foundation
internal import GRDB
internal import SequencerSQLite

extension SQLiteJournal {
    /// Opens the journal at `path` for reading only, as `sequencer serve` does: nothing is
    /// created, migrated or written, and the file may be recorded into by others meanwhile.
    ///
    /// - Throws: ``JournalError`` when there is no file, when it is not a journal or is damaged,
    ///   when a newer Sequencer wrote it, or when it is older than the packed job records
    ///   (schema version 2; any `sequencer` command that writes migrates it).
    public convenience init(readingOnly path: String) throws {
        try self.init(readingOnly: path, patience: 5)
    }

    /// Opens the journal at `path` for reading only, waiting up to `patience` seconds for a
    /// journal being created to be made (see ``header(of:patience:)``).
    convenience init(readingOnly path: String, patience: Double) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw JournalError(code: .unreadable, path: path, message: "there is no journal here (no run has been recorded with it)")
        }
        if let reason = Damage.marked(path) { throw Self.damaged(path: path, reason: reason, marking: false) }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        configuration.label = "sequencer-journal-reader"
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            let (foundID, version) = try Self.header(of: database, patience: patience)
            guard foundID == Schema.applicationID else {
                throw JournalError(code: .unreadable, path: path, message: "not a Sequencer journal (an SQLite database of another program)")
            }
            guard version <= Schema.current else {
                throw JournalError(
                    code: .newerVersion, path: path,
                    message: "the journal has schema version \(version), newer than this sequencer knows (\(Schema.current)); use a newer sequencer")
            }
            guard version != 0 else {
                throw JournalError(
                    code: .unreadable, path: path,
                    message: "the journal is still being created (its tables are not all made); if no `sequencer` is creating it, any `sequencer run` or `sequencer runs` finishes it")
            }
            guard version >= 2 else {
                throw JournalError(
                    code: .unreadable, path: path,
                    message: "the journal has schema version \(version), older than this reader reads (2); any `sequencer run` or `sequencer runs` upgrades it")
            }
        } catch let error as JournalError {
            throw error
        } catch where Damage.isDamage(error) {
            throw Self.damaged(path: path, reason: Self.describe(error))
        } catch {
            throw JournalError(code: .unreadable, path: path, message: "cannot read the journal (it is damaged, or not a journal): \(Self.describe(error))")
        }
        self.init(path: path, database: database)
    }

    /// The journal's application ID and schema version. A new journal is made in steps (an empty
    /// file, stamped with the ID, then each migration, then the version), so a reader that
    /// opens it meanwhile, as `sequencer serve` started with a first `sequencer run` may, finds
    /// an empty file or version 0: it waits for its creator, up to `patience` seconds.
    private static func header(of database: DatabaseQueue, patience: Double) throws -> (id: Int32, version: Int) {
        let start = Date()
        while true {
            let (id, version, tables) = try database.read { db in
                (try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0, try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0,
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0)
            }
            let beingMade = id == 0 && tables == 0 || id == Schema.applicationID && version == 0
            guard beingMade, Date().timeIntervalSince(start) < patience else {
                return (id == 0 && tables == 0 ? Schema.applicationID : id, version)
            }
            usleep(20_000)
        }
    }

    /// A page of runs, newest first: those with an ID below `before` (all when nil), of
    /// `workflow` and with `status` when they are given; at most `limit`. Each page is one
    /// indexed range read, however many runs came before it.
    public func runs(workflow: String?, status: String?, before: Int64?, limit: Int) throws -> [JournalRun] {
        let (condition, arguments) = Self.condition(workflow: workflow, status: status, before: before)
        return try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM runs\(condition) ORDER BY id DESC LIMIT ?", arguments: arguments + [limit]
            ).map(Self.run(from:))
        }
    }

    /// How many runs there are of `workflow` and with `status` (all when nil).
    public func runCount(workflow: String?, status: String?) throws -> Int {
        let (condition, arguments) = Self.condition(workflow: workflow, status: status, before: nil)
        return try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM runs\(condition)", arguments: arguments) ?? 0 }
    }

    /// The workflows with runs in the journal, by name.
    public func workflows() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT workflow FROM runs ORDER BY workflow") }
    }

    private static func condition(workflow: String?, status: String?, before: Int64?) -> (String, StatementArguments) {
        var clauses: [String] = []
        var arguments: StatementArguments = []
        if let workflow {
            clauses.append("workflow = ?")
            arguments += [workflow]
        }
        if let status {
            clauses.append("status = ?")
            arguments += [status]
        }
        if let before {
            clauses.append("id < ?")
            arguments += [before]
        }
        return (clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND "), arguments)
    }
}
