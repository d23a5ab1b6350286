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
            QueueError(code: .unreadable, location: path, message: "cannot read the queue (it is damaged, or not a queue): \(reason); it was left untouched")
        }
    }
}
