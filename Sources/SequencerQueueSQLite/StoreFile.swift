import Foundation
internal import GRDB
internal import SequencerSQLite

/// Opening a queue's SQLite file (see `VersionedFile`): refusing what is not a queue or is
/// newer, migrating what is older, in the queue's words.
enum StoreFile {
    static func checkHeader(_ path: String) throws(QueueError) {
        do throws(VersionedFile.Problem) {
            try VersionedFile.checkHeader(path)
        } catch {
            throw Self.error(error, path: path)
        }
    }

    static func open(_ database: DatabaseQueue, path: String) throws(QueueError) {
        do throws(VersionedFile.Problem) {
            try VersionedFile(applicationID: QueueSchema.applicationID, current: QueueSchema.current, migrator: QueueSchema.migrator())
                .open(database)
        } catch {
            throw Self.error(error, path: path)
        }
    }

    static func error(_ problem: VersionedFile.Problem, path: String) -> QueueError {
        switch problem {
        case .notSQLite:
            QueueError(code: .unreadable, location: path, message: "not a Sequencer queue (not an SQLite database); it was left untouched")
        case .foreign:
            QueueError(code: .unreadable, location: path, message: "not a Sequencer queue (an SQLite database of another program); it was left untouched")
        case .newer(let version):
            QueueError(
                code: .newerVersion, location: path,
                message: "the queue has schema version \(version), newer than this Sequencer knows (\(QueueSchema.current)); use a newer Sequencer; the file was left untouched")
        case .damaged(let reason):
            damaged(path: path, reason: reason)
        case .unusable(let reason):
            QueueError(code: .unreadable, location: path, message: "cannot open the queue: \(reason); it was left as it is")
        }
    }

    /// The error for a queue file SQLite found damaged; leaves the marker that keeps every
    /// later open from using it (unless `marking` is false). The message names the commands
    /// that recover what can still be read, into a new file.
    static func damaged(path: String, reason: String, marking: Bool = true) -> QueueError {
        if marking { Damage.mark(path, reason: reason) }
        return QueueError(
            code: .unreadable, location: path,
            message: "the queue is damaged (SQLite: \(reason)); it was left as it is, and nothing is written to it. "
                + "To copy what can still be read into a new file (this one stays as it is): "
                + "sequencer gc --recover --queue \(path), which writes \(recoveredPath(path)) and says what was lost; "
                + "then, with every worker stopped, move this file aside (with its -wal and -shm files, if any) and the new one into its place")
    }

    /// Where ``SQLiteQueueStore/recover(from:)`` writes what it reads of a damaged file.
    static func recoveredPath(_ path: String) -> String { path + ".recovered" }

    /// Refuses a file marked damaged by an earlier command, and checks the file
    /// (`PRAGMA quick_check`, O(file size)): a queue holds work that matters, and a worker opens
    /// it once, so it is checked at every open.
    static func checkForDamage(_ database: DatabaseQueue, path: String) throws(QueueError) {
        if let reason = Damage.marked(path) { throw damaged(path: path, reason: reason, marking: false) }
        let problems: [String]
        do {
            problems = try database.read { db in try Damage.quickCheck(db) }
        } catch {
            if Damage.isDamage(error) { throw damaged(path: path, reason: VersionedFile.describe(error)) }
            throw QueueError(code: .database, location: path, message: "checking the queue failed: \(VersionedFile.describe(error))")
        }
        if !problems.isEmpty { throw damaged(path: path, reason: Damage.summary(problems)) }
    }
}
