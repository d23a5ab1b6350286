import Foundation
internal import GRDB
internal import SequencerSQLite
public import SequencerHistory

/// What a dry run needs from a journal, read without writing anything: not to the journal, not
/// beside it (no `-wal` or `-shm` file is made), and not by migrating it.
///
/// ```swift
/// let snapshot = try JournalSnapshot.read(path: ".sequencer/journal.sqlite", workflow: "/src/app/sequencer.yml")
/// snapshot?.fingerprints["link"]?.parts   // what link's last success was made of
/// ```
public struct JournalSnapshot: Sendable {
    /// The fingerprints of the workflow's last successes, by job.
    public var fingerprints: [String: Fingerprint]
    /// The cache of file hashes (see ``SQLiteJournal/fileHashes()``).
    public var fileHashes: [String: (stamp: FileStamp, hash: String)]

    /// Reads the journal at `path`: opened as an immutable file when it is of this Sequencer's
    /// schema, its write-ahead log is empty and no process is recording in it; otherwise (an
    /// older schema to migrate, a log to replay, a writer) a copy in a temporary directory is
    /// opened, and removed.
    ///
    /// - Parameters:
    ///   - path: The journal's file.
    ///   - workflow: The workflow whose fingerprints to read (the command line uses the file's
    ///     absolute path).
    /// - Returns: The snapshot, or nil when there is no journal at `path`.
    /// - Throws: ``JournalError`` when the file is not a journal, is damaged or is newer.
    public static func read(path: String, workflow: String) throws -> JournalSnapshot? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do throws(VersionedFile.Problem) {
            try VersionedFile.checkHeader(path)
        } catch {
            return try readCopy(of: path, workflow: workflow)  // SQLiteJournal says what is wrong
        }
        // A run leaves an empty log (it checkpoints as it ends); one being recorded may be
        // checkpointing into the file: read a copy then.
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        if log == 0, let journal = immutable(path), !journal.isRecordingElsewhere,
           let snapshot = try? read(journal, workflow: workflow) {
            return snapshot
        }
        return try readCopy(of: path, workflow: workflow)
    }

    private static func read(_ journal: SQLiteJournal, workflow: String) throws -> JournalSnapshot {
        JournalSnapshot(fingerprints: try journal.fingerprints(workflow: workflow), fileHashes: try journal.fileHashes())
    }

    /// The journal opened read-only as an immutable file (SQLite then takes no lock and makes
    /// no file), if it is one of this schema; nil otherwise, or when SQLite reads no URIs.
    private static func immutable(_ path: String) -> SQLiteJournal? {
        var configuration = Configuration()
        configuration.readonly = true
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        guard let escaped = absolute.addingPercentEncoding(withAllowedCharacters: allowed),
              let database = try? DatabaseQueue(path: "file:\(escaped)?immutable=1", configuration: configuration),
              let (id, version) = try? database.read({ db in
                  (try Int32.fetchOne(db, sql: "PRAGMA application_id"), try Int.fetchOne(db, sql: "PRAGMA user_version"))
              }),
              id == Schema.applicationID, version == Schema.current
        else { return nil }
        return SQLiteJournal(path: path, database: database)
    }

    /// Reads a copy of the journal (and of its write-ahead log), opened and migrated as usual.
    private static func readCopy(of path: String, workflow: String) throws -> JournalSnapshot {
        let files = FileManager.default
        let directory = NSTemporaryDirectory() + "sequencer-journal-\(getpid())-\(UUID().uuidString)"
        defer { try? files.removeItem(atPath: directory) }
        do {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try files.copyItem(atPath: path, toPath: directory + "/journal.sqlite")
            if files.fileExists(atPath: path + "-wal") {
                try files.copyItem(atPath: path + "-wal", toPath: directory + "/journal.sqlite-wal")
            }
        } catch {
            throw JournalError(code: .unreadable, path: path, message: "cannot copy the journal to read it: \(error.localizedDescription)")
        }
        do {
            return try read(SQLiteJournal(path: directory + "/journal.sqlite"), workflow: workflow)
        } catch let error as JournalError {
            // Name the journal, not its copy; the copy's damage is the journal's.
            if error.code == .damaged { throw SQLiteJournal.damaged(path: path, reason: "a copy of it read as damaged") }
            throw JournalError(code: error.code, path: path, message: error.message)
        }
    }
}
