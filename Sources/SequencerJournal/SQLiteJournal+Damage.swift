public import Foundation
internal import GRDB
internal import SequencerSQLite

extension SQLiteJournal {
    /// Checks the whole journal file at `path` (`PRAGMA integrity_check`), without writing to
    /// it: opened read-only, so that not even a checkpoint of its write-ahead log goes into it.
    /// Problems found leave the marker that keeps later commands from writing into the file; a
    /// file an earlier command found damaged (by the marker) is reported damaged too.
    ///
    /// ```swift
    /// let problems = try SQLiteJournal.check(path: ".sequencer/journal.sqlite")
    /// if !problems.isEmpty { _ = try SQLiteJournal.setAside(path: ".sequencer/journal.sqlite") }
    /// ```
    /// - Returns: What SQLite found wrong, in its words; empty for a healthy file.
    /// - Throws: ``JournalError`` when there is no file, or it cannot be opened for another
    ///   reason than damage (permissions, say).
    public static func check(path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw JournalError(code: .unreadable, path: path, message: "there is no journal here (runs are recorded by `sequencer run`)")
        }
        do throws(VersionedFile.Problem) {
            try VersionedFile.checkHeader(path)
        } catch {
            Damage.mark(path, reason: "not an SQLite database")
            return ["not an SQLite database (file is not a database)"]
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        configuration.label = "sequencer-journal-check"
        let problems: [String]
        do {
            let database = try DatabaseQueue(path: path, configuration: configuration)
            problems = try database.read { db in try Damage.integrityCheck(db) }
        } catch where Damage.isDamage(error) {
            problems = [describe(error)]
        } catch {
            throw JournalError(code: .unreadable, path: path, message: "cannot check the journal: \(describe(error))")
        }
        if !problems.isEmpty {
            Damage.mark(path, reason: Damage.summary(problems))
            return problems
        }
        // SQLite reported damage to an earlier command; the file stays refused.
        return Damage.marked(path).map { ["an earlier command found it damaged: \($0)"] } ?? []
    }

    /// Sets a damaged journal aside: renames it (with its write-ahead log and the marker that
    /// says it is damaged) to `PATH.damaged-YYYYMMDD-HHMMSS` beside it, kept as it is, and
    /// starts a new journal at `PATH` with what still reads of the old one, table by table (see
    /// `VersionedFile.salvage`): the runs, fingerprints and file hashes before the damaged
    /// pages. Jobs whose fingerprints were lost run again; when nothing could be read (the
    /// schema page is damaged, or the file is not SQLite), the next run starts an empty journal
    /// and runs every job once. The up-to-date state (a cache) is not copied.
    ///
    /// A healthy journal is not moved: the file is checked first (``check(path:)``), and `nil`
    /// is returned.
    /// - Returns: Where the old file went and what was recovered; nil when it is healthy.
    /// - Throws: ``JournalError/Code/busy`` while a run records in it; ``JournalError`` when
    ///   there is no file, or it cannot be checked or renamed.
    public static func setAside(path: String, now: Date = Date()) throws -> JournalSetAside? {
        let lock = JournalLock(path: path + ".lock")
        let holder = try lock.acquire(journal: path)
        defer { lock.release(holder) }
        if try check(path: path).isEmpty { return nil }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        var target = path + ".damaged-" + formatter.string(from: now)
        var number = 1
        while FileManager.default.fileExists(atPath: target) {
            number += 1
            target = path + ".damaged-" + formatter.string(from: now) + "-\(number)"
        }
        let files = FileManager.default
        do {
            // The database first: once it has moved, a new journal can start, whatever follows.
            try files.moveItem(atPath: path, toPath: target)
            for suffix in ["-wal", "-shm"] where files.fileExists(atPath: path + suffix) {
                try files.moveItem(atPath: path + suffix, toPath: target + suffix)
            }
            let marker = Damage.markerPath(of: path)
            if files.fileExists(atPath: marker) { try files.moveItem(atPath: marker, toPath: Damage.markerPath(of: target)) }
        } catch {
            throw JournalError(code: .unreadable, path: path, message: "cannot set the journal aside as \(target): \(error.localizedDescription)")
        }
        do {
            let salvage = try file().salvage(from: target, into: path, skipping: ["up_to_date_states"])
            return JournalSetAside(
                damagedFile: target, recovered: Dictionary(salvage.copied, uniquingKeysWith: +), lost: salvage.lost)
        } catch {
            // Nothing recovered: the next open starts an empty journal.
            for suffix in ["", "-wal", "-shm"] { try? files.removeItem(atPath: path + suffix) }
            return JournalSetAside(damagedFile: target, recovered: [:], lost: ["everything (\(describe(error)))"])
        }
    }
}

/// A damaged journal set aside by ``SQLiteJournal/setAside(path:now:)``.
public struct JournalSetAside: Sendable {
    /// Where the damaged file now is, kept as it was.
    public let damagedFile: String
    /// The rows read from it into the new journal, by table (`runs`, `fingerprints`, ...);
    /// empty when nothing could be read.
    public let recovered: [String: Int]
    /// What could not be recovered, in words.
    public let lost: [String]
}
