internal import Sequencer
import Foundation
internal import GRDB
internal import SequencerSQLite

/// A journal of runs in an SQLite database (WAL mode): the runs of workflows, each job's
/// outcome and attempts, the fingerprints of jobs that succeeded, and a cache of file hashes.
///
/// ```swift
/// let journal = try SQLiteJournal(path: "startup.journal.sqlite")
/// let recorder = try journal.beginRun(workflow: "startup")
/// let report = try await workflow.start(RunOptions(recorder: recorder)).report()
/// // After a crash, or a failure: run again what did not succeed, restoring the rest.
/// let resumed = try journal.resumeRun(recorder.runID)
/// let again = try await workflow.start(RunOptions(recorder: resumed)).report()
/// ```
///
/// Opening a journal migrates an older schema forward. A journal written by a newer
/// Sequencer, or a file that is not a journal or is damaged, is refused with a
/// ``JournalError`` and left as it is.
///
/// Readers (``runs(workflow:limit:)``, ``jobs(of:)``) may run while another process
/// records a run. Only one recorder may write at a time: ``beginRun(workflow:info:)`` and
/// ``resumeRun(_:)`` throw ``JournalError/Code/busy`` while another holds the journal.
public final class SQLiteJournal: Sendable {
    /// The database file.
    public let path: String
    let database: DatabaseQueue
    let lock: JournalLock
    /// What SQLite said when it found this file damaged, once it has: nothing more is written.
    private let damage = Locked<String?>(nil)

    /// Opens the journal at `path`, creating it when there is no file, and migrating it when
    /// it is older than this Sequencer.
    /// - Throws: ``JournalError`` when the file is not a journal, is damaged, or is newer.
    public init(path: String) throws {
        self.path = path
        lock = JournalLock(path: path + ".lock")
        if let reason = Damage.marked(path) { throw Self.damaged(path: path, reason: reason, marking: false) }
        do throws(VersionedFile.Problem) {
            try VersionedFile.checkHeader(path)
        } catch {
            throw Self.error(error, path: path)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "sequencer-journal"
        // In WAL mode, NORMAL survives the process being killed at any moment (every commit is
        // in the WAL when it returns); a power loss may undo the last commits, never corrupt.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw Self.error(Damage.isDamage(error) ? .damaged(Self.describe(error)) : .unusable(Self.describe(error)), path: path)
        }
        do throws(VersionedFile.Problem) {
            try Self.file().open(database)
        } catch {
            throw Self.error(error, path: path)
        }
    }

    /// A journal over a database opened by the caller, as it is: no check, no migration.
    init(path: String, database: DatabaseQueue) {
        self.path = path
        self.database = database
        lock = JournalLock(path: path + ".lock")
    }

    /// The journal's file, as SequencerSQLite opens it: refused when it is not a journal or is
    /// newer, migrated when it is older.
    static func file() -> VersionedFile {
        VersionedFile(applicationID: Schema.applicationID, current: Schema.current, migrator: Schema.migrator())
    }

    /// The journal's words for what ``VersionedFile`` found.
    private static func error(_ problem: VersionedFile.Problem, path: String) -> JournalError {
        switch problem {
        case .notSQLite:
            JournalError(
                code: .damaged, path: path,
                message: "not a Sequencer journal (not an SQLite database): damaged, or another file; it was left untouched. \(wayOut(path))")
        case .foreign:
            JournalError(code: .unreadable, path: path, message: "not a Sequencer journal (an SQLite database of another program); it was left untouched")
        case .newer(let version):
            JournalError(
                code: .newerVersion, path: path,
                message: "the journal has schema version \(version), newer than this sequencer knows (\(Schema.current)); use a newer sequencer, or move the file away to start a new journal")
        case .damaged(let reason):
            damaged(path: path, reason: reason)
        case .unusable(let reason):
            JournalError(code: .unreadable, path: path, message: "cannot open the journal: \(reason); it was left as it is")
        }
    }

    /// The error for a journal SQLite found damaged; leaves the marker that keeps every later
    /// command from writing into it (unless `marking` is false).
    static func damaged(path: String, reason: String, marking: Bool = true) -> JournalError {
        if marking { Damage.mark(path, reason: reason) }
        return JournalError(
            code: .damaged, path: path,
            message: "the journal is damaged (SQLite: \(reason)); it was left as it is, and nothing more is written to it. \(wayOut(path))")
    }

    /// The way out of a damaged journal, in the command line's words.
    static func wayOut(_ path: String) -> String {
        "To set it aside (kept, renamed) and start a new journal with what still reads of it (jobs whose records were lost run again): sequencer gc --set-aside --journal \(path)"
    }

    /// The schema version of the journal, after opening (and migrating) it.
    public func schemaVersion() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
    }

    /// Checks the whole database file (`PRAGMA integrity_check`); returns the problems found.
    /// Problems found also mark the file damaged: nothing more is written to it.
    public func integrityProblems() throws -> [String] {
        let problems = try read { db in try Damage.integrityCheck(db) }
        if !problems.isEmpty { _ = found(damage: Damage.summary(problems)) }
        return problems
    }

    /// Takes the writer lock for a recorder. When the last holder did not let it go (its
    /// process died while recording), the file is checked first (`PRAGMA quick_check`): a
    /// write must not go into a file that the crash, or the machine's, left damaged.
    /// - Throws: ``JournalError/Code/busy``, or ``JournalError/Code/damaged``.
    func acquireForWriting() throws -> UInt64 {
        let (holder, endedUncleanly) = try lock.acquireNoting(journal: path)
        guard endedUncleanly else { return holder }
        do {
            let problems = try read { db in try Damage.quickCheck(db) }
            if !problems.isEmpty { throw found(damage: Damage.summary(problems)) }
            return holder
        } catch {
            lock.release(holder, cleanly: false)
            throw error
        }
    }

    // MARK: - Recording

    /// Begins a new run of `workflow` (a name; the command line uses the workflow file's path).
    /// `info` is kept with the run, for the caller (the command line keeps its options there).
    /// - Throws: ``JournalError/Code/busy`` while another recorder holds the journal.
    public func beginRun(workflow: String, info: String? = nil) throws -> JournalRecorder {
        let holder = try acquireForWriting()
        do {
            let id = try write { db in (try Int64.fetchOne(db, sql: "SELECT max(id) FROM runs") ?? 0) + 1 }
            lock.name(run: id, holder: holder)
            return JournalRecorder(journal: self, lockHolder: holder, runID: id, workflow: workflow, info: info, resuming: false)
        } catch {
            lock.release(holder)
            throw error
        }
    }

    /// Resumes the run `id`: its jobs that succeeded (or were up to date) are restored, and the
    /// rest run again.
    /// - Throws: ``JournalError/Code/noSuchRun`` when there is no such run;
    ///   ``JournalError/Code/busy`` while another recorder holds the journal.
    public func resumeRun(_ id: Int64) throws -> JournalRecorder {
        let holder = try acquireForWriting()
        do {
            guard let run = try self.run(id) else {
                throw JournalError(code: .noSuchRun, path: path, message: "there is no run #\(id)")
            }
            lock.name(run: id, holder: holder)
            return JournalRecorder(journal: self, lockHolder: holder, runID: id, workflow: run.workflow, info: run.info, resuming: true)
        } catch {
            lock.release(holder)
            throw error
        }
    }

    /// Copies what the WAL holds into the main file and empties the WAL, so that the file
    /// alone is a complete copy. A recorder does it when its run ends. Best effort: when a
    /// reader holds the WAL past the busy timeout, the next writer's checkpoint does it.
    public func checkpoint() {
        guard (try? refuseIfDamaged()) != nil else { return }
        _ = try? database.writeWithoutTransaction { db in try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    // MARK: - Database access

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch let error as JournalError {
            throw error
        } catch where Damage.isDamage(error) {
            throw found(damage: Self.describe(error))
        } catch {
            throw JournalError(code: .database, path: path, message: "reading the journal failed: \(Self.describe(error))")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try refuseIfDamaged()
        do {
            return try database.write(body)
        } catch let error as JournalError {
            throw error
        } catch where Damage.isDamage(error) {
            throw found(damage: Self.describe(error))
        } catch {
            throw JournalError(code: .database, path: path, message: "writing the journal failed: \(Self.describe(error))")
        }
    }

    static func describe(_ error: any Error) -> String { VersionedFile.describe(error) }

    /// Notes that SQLite found the file damaged (in this process, and with the marker beside
    /// the file for the next ones); returns the error to throw.
    func found(damage reason: String) -> JournalError {
        damage.withLock { if $0 == nil { $0 = reason } }
        return Self.damaged(path: path, reason: reason)
    }

    /// Throws ``JournalError/Code/damaged`` when this process, or an earlier command, found
    /// the file damaged: checked before every write.
    func refuseIfDamaged() throws {
        if let reason = damage.withLock({ $0 }) ?? Damage.marked(path) {
            throw Self.damaged(path: path, reason: reason, marking: false)
        }
    }
}
