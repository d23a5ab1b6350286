import Foundation
internal import GRDB
public import Sequencer

/// Records one run in an ``SQLiteJournal``: pass it as `RunOptions(recorder:)`.
///
/// The run hands it records under its scheduler's lock; they go into a buffer, and a thread of
/// the recorder's own writes the buffer in one transaction every few milliseconds, in the order
/// the records came. So a job's success is never in the journal before the successes of the
/// jobs it needs, and the scheduler never waits for the disk. The run's report is delivered
/// after the last write.
///
/// A recorder holds the journal's writer lock from ``SQLiteJournal/beginRun(workflow:info:)``
/// until its run ends, or until ``close()`` for a run that never started.
public final class JournalRecorder: RunRecorder, @unchecked Sendable {
    // @unchecked: `pending`, `closing`, `started` and `finished` are only touched while
    // holding `condition`; the other stored properties are immutable.
    /// The run's number in the journal.
    public let runID: Int64
    public let workflow: String
    /// Whether this recorder resumes an earlier run.
    public let isResuming: Bool
    let journal: SQLiteJournal
    private let info: String?
    /// The wall-clock time of this session's start, in nanoseconds since 1970: job times are
    /// stored as this plus their offset from the run's start.
    private let origin: Int64

    private let condition = NSCondition()
    private var pending: [Entry] = []
    private var closing = false
    private var finished = false
    private var failure: JournalError?

    /// How long the writer gathers records before a transaction.
    static let interval: TimeInterval = 0.005

    enum Entry {
        case started(JobID, Int, Duration)
        case finished(JobRecord)
        case attempt(JournalAttempt)
        case fingerprint(job: String, fingerprint: String, inputs: String)
        case fileHash(path: String, FileStamp, hash: String)
        case runEnded(RunReport)
    }

    init(journal: SQLiteJournal, runID: Int64, workflow: String, info: String?, resuming: Bool) {
        self.journal = journal
        self.runID = runID
        self.workflow = workflow
        self.info = info
        isResuming = resuming
        origin = Int64(Date().timeIntervalSince1970 * 1e9)
    }

    deinit {
        journal.lock.release()
    }

    // MARK: - RunRecorder

    public func runStarting(jobs: [JobID]) throws -> [JobID: RestoredResult] {
        let restored = try journal.write { db -> [JobID: RestoredResult] in
            if isResuming {
                try db.execute(
                    sql: "UPDATE runs SET status = 'running', ended_at = NULL, sessions = sessions + 1, job_count = ? WHERE id = ?",
                    arguments: [jobs.count, runID])
                return try Self.restorable(db, run: runID)
            }
            try db.execute(
                sql: "INSERT INTO runs (id, workflow, info, status, started_at, job_count) VALUES (?, ?, ?, 'running', ?, ?)",
                arguments: [runID, workflow, info, origin, jobs.count])
            return [:]
        }
        let thread = Thread { [self] in writeLoop() }
        thread.name = "sequencer-journal"
        thread.start()
        return restored
    }

    public func jobStarted(_ id: JobID, index: Int, at time: Duration) {
        append(.started(id, index, time))
    }

    public func jobFinished(_ record: JobRecord) {
        guard !record.restored else { return }  // its row already says how it succeeded
        append(.finished(record))
    }

    public func runFinished(_ report: RunReport) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                condition.withLock {
                    pending.append(.runEnded(report))
                    closing = true
                    condition.broadcast()
                    while !finished { condition.wait() }
                }
                journal.lock.release()
                continuation.resume()
            }
            thread.name = "sequencer-journal-close"
            thread.start()
        }
    }

    // MARK: - Records from the caller

    /// Records an attempt of a job: when it ran (after the run's start), how it ended, and
    /// where its output is.
    public func recordAttempt(
        job: String, attempt: Int, startedAt: Duration, endedAt: Duration, exit: String, exitCode: Int?, signal: Int?,
        output: String?
    ) {
        append(.attempt(JournalAttempt(
            job: job, attempt: attempt, startedAt: origin + startedAt.wholeNanoseconds,
            endedAt: origin + endedAt.wholeNanoseconds, exit: exit, exitCode: exitCode, signal: signal, output: output)))
    }

    /// Records the fingerprint of a job that just succeeded, with its parts.
    public func recordFingerprint(job: String, fingerprint: String, parts: [String: String]) {
        append(.fingerprint(job: job, fingerprint: fingerprint, inputs: JournalFingerprint.encode(parts)))
    }

    /// Records a file's hash for the cache read by ``SQLiteJournal/fileHashes()``.
    public func recordFileHash(path: String, stamp: FileStamp, hash: String) {
        append(.fileHash(path: path, stamp, hash: hash))
    }

    /// The first error writing the journal met, if any: writes stop after it, and the run
    /// goes on without being recorded.
    public var writeError: JournalError? { condition.withLock { failure } }

    /// Lets another recorder use the journal; for a recorder whose run never started.
    public func close() {
        journal.lock.release()
    }

    private func append(_ entry: Entry) {
        condition.lock()
        pending.append(entry)
        condition.unlock()
    }

    // MARK: - Writing

    private func writeLoop() {
        var done = false
        while !done {
            let batch: [Entry] = condition.withLock {
                if !closing { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.interval)) }
                defer { pending.removeAll(keepingCapacity: true) }
                done = closing
                return pending
            }
            if !batch.isEmpty, condition.withLock({ failure == nil }) {
                do {
                    try journal.write { db in try write(batch, db) }
                } catch {
                    let failure = error as? JournalError
                        ?? JournalError(code: .database, path: journal.path, message: "\(error)")
                    condition.withLock { self.failure = failure }
                }
            }
        }
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    private func write(_ batch: [Entry], _ db: Database) throws {
        // A job that started and ended within the batch needs only its end written.
        var endedHere = Set<Int>()
        for case .finished(let record) in batch { endedHere.insert(record.index) }
        let start = try db.cachedStatement(sql: """
            INSERT INTO jobs (run_id, name, position, status, attempts, started_at) VALUES (?, ?, ?, 'running', 0, ?)
            ON CONFLICT (run_id, name) DO UPDATE SET position = excluded.position, status = 'running', code = NULL,
                error = NULL, attempts = 0, started_at = excluded.started_at, ended_at = NULL, result = NULL, result_kind = 0
            """)
        let end = try db.cachedStatement(sql: """
            INSERT INTO jobs (run_id, name, position, status, code, error, attempts, started_at, ended_at, result, result_kind, parent)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (run_id, name) DO UPDATE SET position = excluded.position, status = excluded.status,
                code = excluded.code, error = excluded.error, attempts = excluded.attempts, started_at = excluded.started_at,
                ended_at = excluded.ended_at, result = excluded.result, result_kind = excluded.result_kind, parent = excluded.parent
            """)
        for entry in batch {
            switch entry {
            case .started(let id, let index, let time):
                guard !endedHere.contains(index) else { continue }
                try start.execute(arguments: [runID, id.description, index, origin + time.wholeNanoseconds])
            case .finished(let record):
                let (result, kind) = Self.encodeResult(of: record)
                try end.execute(arguments: [
                    runID, record.id.description, record.index, record.status.rawValue, record.errorCode?.description,
                    Self.describeError(of: record), record.attempts, record.startedAt.map { origin + $0.wholeNanoseconds },
                    record.endedAt.map { origin + $0.wholeNanoseconds }, result, kind.rawValue, record.parent?.description,
                ])
            case .attempt(let attempt):
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO attempts (run_id, name, attempt, started_at, ended_at, exit, exit_code, signal, output)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        runID, attempt.job, attempt.attempt, attempt.startedAt, attempt.endedAt, attempt.exit,
                        attempt.exitCode, attempt.signal, attempt.output,
                    ])
            case .fingerprint(let job, let fingerprint, let inputs):
                try db.execute(
                    sql: "INSERT OR REPLACE INTO fingerprints (workflow, name, fingerprint, inputs, run_id) VALUES (?, ?, ?, ?, ?)",
                    arguments: [workflow, job, fingerprint, inputs, runID])
            case .fileHash(let path, let stamp, let hash):
                try db.execute(
                    sql: "INSERT OR REPLACE INTO file_hashes (path, size, mtime, inode, hash) VALUES (?, ?, ?, ?, ?)",
                    arguments: [path, stamp.size, stamp.modified, stamp.inode, hash])
            case .runEnded(let report):
                try endRun(report, db)
            }
        }
    }

    private func endRun(_ report: RunReport, _ db: Database) throws {
        var counts: [String: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT status, count(*) AS n FROM jobs WHERE run_id = ? GROUP BY status", arguments: [runID]) {
            counts[row["status"]] = row["n"]
        }
        let ended = origin + report.duration.wholeNanoseconds
        try db.execute(
            sql: """
                UPDATE runs SET status = ?, ended_at = ?, succeeded = ?, failed = ?, skipped = ?, cancelled = ?, timed_out = ?
                WHERE id = ?
                """,
            arguments: [
                report.status.rawValue, ended, counts["succeeded", default: 0], counts["failed", default: 0],
                counts["skipped", default: 0], counts["cancelled", default: 0], counts["timedOut", default: 0], runID,
            ])
    }

    // MARK: - Results

    enum ResultKind: Int {
        /// `Void`, or nothing to keep (the job did not succeed).
        case none = 0
        /// JSON of an `Encodable` value.
        case json = 1
        /// A value that is not `Encodable`: the job runs again on a resume.
        case notKept = 2
    }

    static func encodeResult(of record: JobRecord) -> (Data?, ResultKind) {
        guard record.hasValue, record.status == .succeeded || record.errorCode == .upToDate else { return (nil, .none) }
        guard let value = record.value as? any Encodable, let data = try? JSONEncoder().encode(value) else {
            return (nil, .notKept)
        }
        return (data, .json)
    }

    static func describeError(of record: JobRecord) -> String? {
        guard let code = record.errorCode, code != .upToDate else { return nil }
        if let cause = record.cause { return "needed job '\(cause)' did not succeed" }
        return record.underlying.map { "\($0)" } ?? code.description
    }

    /// The jobs of `run` that succeeded or were up to date, with results that can be restored.
    static func restorable(_ db: Database, run: Int64) throws -> [JobID: RestoredResult] {
        var results: [JobID: RestoredResult] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT name, result, result_kind FROM jobs
                WHERE run_id = ? AND (status = 'succeeded' OR code = 'upToDate') AND parent IS NULL
                """,
            arguments: [run])
        while let row = try rows.next() {
            let name: String = row["name"]
            switch ResultKind(rawValue: row["result_kind"]) {
            case .none?: results[JobID(name)] = .void
            case .json?: if let data: Data = row["result"] { results[JobID(name)] = .encoded(JSONResult(data: data)) }
            case .notKept?, nil: break
            }
        }
        return results
    }
}

/// A result kept as JSON.
struct JSONResult: EncodedResult {
    let data: Data

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}
