import Foundation
internal import GRDB
@_spi(Recording) public import Sequencer
public import SequencerHistory

/// Records one run in an ``SQLiteJournal``: pass it as `RunOptions(recorder:)`.
///
/// A thread of the recorder's own takes the run's records every few milliseconds and writes
/// them in one transaction, packed (see the journal's documentation): the run only notes each
/// job's position as it starts and ends, and never waits for the disk. Records are written in
/// the order jobs ended, so a job's success is never in the journal before the successes of
/// the jobs it needs. The run's report is delivered after the last write.
///
/// A recorder holds the journal's writer lock from ``SQLiteJournal/beginRun(workflow:info:)``
/// until its run ends, or until ``close()`` for a run that never started.
public final class JournalRecorder: RunRecorder, RunWriter, @unchecked Sendable {
    // @unchecked: the `var`s below are only touched while holding `condition`; the `let`s
    // are immutable.
    /// The run's number in the journal.
    public let runID: Int64
    public let workflow: String
    /// Whether this recorder resumes an earlier run.
    public let isResuming: Bool
    /// The journal the run is recorded in.
    public let journal: SQLiteJournal
    /// This recorder's hold on the journal's writer lock.
    let lockHolder: UInt64
    let info: String?
    /// The wall-clock time of this session's start, in nanoseconds since 1970.
    let origin: Int64
    /// The same moment on the continuous clock.
    let originInstant = ContinuousClock.now

    let condition = NSCondition()
    /// Records from the caller (attempts, fingerprints, file hashes), written with the next batch.
    var pending: [Entry] = []
    var log: RunLog?
    var session: Int64 = 1
    /// Whether this session checks its jobs and records each check.
    var checksJobs = false
    /// The session's graph, written with its start.
    var graph: HistoryGraph?
    var report: RunReport?
    var finished = false
    var failure: JournalError?
    /// Each job's status code at its last record, by position in this session (255: none),
    /// and children's by name: the run's counts.
    var statuses: [UInt8] = []
    var childStatuses: [String: UInt8] = [:]
    /// How many jobs and children have each status code now: the run's counts, written with
    /// every batch (so that a run killed mid-way is counted as far as its records go).
    var tally = [Int](repeating: 0, count: JobLog.statuses.count)
    /// The writer's scratch space: which positions ended in the batch being written. Only the
    /// writer thread touches it.
    var endedHere: [Bool] = []

    /// How long the writer gathers records before a transaction.
    static let interval: TimeInterval = 0.005

    enum Entry {
        case attempt(JournalAttempt)
        case fingerprint(job: String, Fingerprint)
        case fileHash(path: String, FileStamp, hash: String)
        case check(job: String, fingerprint: String, reason: String?)
    }

    init(journal: SQLiteJournal, lockHolder: UInt64, runID: Int64, workflow: String, info: String?, resuming: Bool) {
        self.journal = journal
        self.lockHolder = lockHolder
        self.runID = runID
        self.workflow = workflow
        self.info = info
        isResuming = resuming
        origin = Int64(Date().timeIntervalSince1970 * 1e9)
    }

    deinit {
        journal.lock.release(lockHolder)
    }

    // MARK: - RunRecorder

    @_spi(Recording) public func runStarting(jobs: [JobID], log: RunLog) throws -> [JobID: RestoredResult] {
        guard condition.withLock({ self.log == nil }) else {
            throw JournalError(
                code: .busy, path: journal.path,
                message: "this recorder already recorded run #\(runID); begin a new run (or resume it) for another start")
        }
        let (checksJobs, graph) = condition.withLock { (self.checksJobs, self.graph) }
        let (session, restored, earlier) = try journal.write { db -> (Int64, [JobID: RestoredResult], [JournalJob]) in
            if isResuming {
                let session = (try Int64.fetchOne(db, sql: "SELECT max(session) FROM run_sessions WHERE run_id = ?", arguments: [runID]) ?? 0) + 1
                try db.execute(
                    sql: "UPDATE runs SET status = 'running', ended_at = NULL, sessions = ?, job_count = ? WHERE id = ?",
                    arguments: [session, jobs.count, runID])
                let earlier = try JobLog.jobs(db, run: runID, path: journal.path)
                let results = try JobLog.results(db, run: runID, jobs: earlier)
                try addSession(session, names: jobs, checked: checksJobs, graph: graph, db)
                return (session, Dictionary(uniqueKeysWithValues: results.map { (JobID($0.key), $0.value) }), earlier)
            }
            try db.execute(
                sql: "INSERT INTO runs (id, workflow, info, status, started_at, job_count) VALUES (?, ?, ?, 'running', ?, ?)",
                arguments: [runID, workflow, info, origin, jobs.count])
            try addSession(1, names: jobs, checked: checksJobs, graph: graph, db)
            return (1, [:], [])
        }
        condition.withLock {
            self.log = log
            self.session = session
            statuses = [UInt8](repeating: 255, count: jobs.count)
            if !earlier.isEmpty {
                var position: [String: Int] = [:]
                for (index, name) in jobs.enumerated() { position[name.rawValue] = index }
                for job in earlier {
                    let status = JobLog.code(ofStored: job.status)
                    if let index = position[job.name] { setStatus(status, of: index) } else if job.parent != nil { setStatus(status, ofChild: job.name) }
                }
            }
        }
        let thread = Thread { [self] in writeLoop() }
        thread.start()
        return restored
    }

    /// Records a run that started nothing because every job was up to date: the same records
    /// as a run whose every job ended ``JobStatus/upToDate`` (one attempt each), and the file
    /// hashes recorded so far, written in one transaction, then the journal is let go, as at the end of a run (but not checkpointed:
    /// see below). Use it instead of starting the run, not as well.
    ///
    /// ```swift
    /// if check.allUpToDate() {
    ///     try recorder.recordUpToDateRun(jobs: names, checked: times, duration: .now - start)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - jobs: The jobs, in the order the run would have added them (each job after its needs).
    ///   - checked: When each job's check started and ended, as offsets from the recorder's
    ///     creation (by position in `jobs`); nil entries, or a shorter array, record no time.
    ///   - duration: How long the run took, from the recorder's creation.
    ///   - state: The files' state for the next no-op run (an encoded `UpToDateState`), kept
    ///     until the workflow's fingerprints next change; nil keeps what is kept.
    /// - Throws: ``JournalError`` when the run cannot be written, or when this recorder already
    ///   recorded a run or resumes one.
    public func recordUpToDateRun(
        jobs: [JobID], checked: [(start: Duration, end: Duration)], duration: Duration, state: [UInt8]? = nil
    ) throws {
        guard !isResuming, condition.withLock({ self.log == nil && !finished }) else {
            throw JournalError(
                code: .busy, path: journal.path,
                message: "run #\(runID) was already recorded (or is being resumed); begin a new run for an up-to-date one")
        }
        let packed: Data
        if checked.count == jobs.count, let first = checked.first,
           !checked.contains(where: { $0.start != first.start || $0.end != first.end }) {
            // Every job checked at once (as a no-op run decides them): one short row.
            packed = JobLog.packUpToDate(count: jobs.count, startedAt: first.start.wholeNanoseconds, endedAt: first.end.wholeNanoseconds)
        } else {
            var records: [JobLog.Record] = []
            records.reserveCapacity(jobs.count)
            for position in jobs.indices {
                let time = position < checked.count ? checked[position] : nil
                records.append(JobLog.Record(
                    position: UInt32(position), ended: true, status: JobLog.code(of: .upToDate), flags: JobLog.Record.upToDate,
                    attempts: 1, startedAt: time?.start.wholeNanoseconds ?? -1, endedAt: time?.end.wholeNanoseconds ?? -1))
            }
            packed = JobLog.pack(records)
        }
        // What the checks noted meanwhile (the hashes of files read again) goes in too.
        let entries = condition.withLock { () -> [Entry] in
            defer { pending.removeAll() }
            return pending
        }
        try journal.write { db in
            try write(entries, session: 1, db)
            try db.execute(
                sql: """
                    INSERT INTO runs (id, workflow, info, status, started_at, ended_at, job_count, skipped)
                    VALUES (?, ?, ?, 'succeeded', ?, ?, ?, ?)
                    """,
                arguments: [runID, workflow, info, origin, origin + duration.wholeNanoseconds, jobs.count, jobs.count])
            // Every job was checked, and found up to date: there is no reason to record.
            try addSession(1, names: jobs, checked: true, db)
            try db.execute(
                sql: "INSERT INTO job_log (run_id, session, seq, records) VALUES (?, 1, 1, ?)",
                arguments: [runID, packed])
            if let state {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO up_to_date_states (workflow, state) VALUES (?, ?)", arguments: [workflow, Data(state)])
            }
        }
        condition.withLock { finished = true }
        // No checkpoint, unlike the end of a run that ran something: the run's records stay in
        // the WAL (durable, and read as usual) until the next run's checkpoint or SQLite's
        // automatic one. Its two syncs took longer than the rest of a no-op run's journal work,
        // and the main file lacks only this run's history: no fingerprint changed.
        journal.lock.release(lockHolder)
    }

    /// The time since this recorder was created: the origin of the offsets it records.
    public var elapsed: Duration { ContinuousClock.now - originInstant }

    func addSession(_ session: Int64, names: [JobID], checked: Bool, graph: HistoryGraph? = nil, _ db: Database) throws {
        let stored = graph?.encoded()
        if let stored {
            try db.execute(sql: "INSERT OR IGNORE INTO graphs (digest, graph) VALUES (?, ?)", arguments: [stored.digest, stored.data])
        }
        try db.execute(
            sql: "INSERT INTO run_sessions (run_id, session, started_at, names, checked, graph) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [runID, session, origin, JobLog.packNames(names), checked ? 1 : 0, stored?.digest])
    }

    @_spi(Recording) public func runFinished(_ report: RunReport) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Waiting for the writer blocks: on a thread of its own, not one of Swift's.
            let thread = Thread { [self] in
                condition.withLock {
                    self.report = report
                    condition.broadcast()
                    while !finished { condition.wait() }
                    // Written: a recorder kept by a job's body (through an up-to-date check,
                    // say) must not keep the report, which keeps the run's results.
                    self.report = nil
                }
                // A clean end: everything goes into the main file, so that the file alone is a
                // complete copy (SQLite leaves it in the WAL until a checkpoint).
                journal.checkpoint()
                journal.lock.release(lockHolder)
                continuation.resume()
            }
            thread.name = "sequencer-journal-close"
            thread.start()
        }
    }

    // MARK: - Records from the caller

    /// The time `offset` after this recorder was created (its run's start), in nanoseconds since
    /// 1970: the unit of an attempt's times.
    public func time(at offset: Duration) -> Int64 { origin + offset.wholeNanoseconds }

    /// Records an attempt of a job: when it ran, how it ended, and the file its output is in (a
    /// journal keeps its attempts' output in files: an attempt given as bytes keeps none).
    public func recordAttempt(_ attempt: NewAttempt) {
        var output: String?
        if case .file(let path) = attempt.output { output = path }
        append(.attempt(JournalAttempt(
            job: attempt.job, attempt: attempt.attempt, startedAt: attempt.startedAt, endedAt: attempt.endedAt,
            exit: attempt.exit, exitCode: attempt.exitCode, signal: attempt.signal, output: output)))
    }

    /// A journal's records are committed with its run (see ``runFinished(_:)``): nothing to
    /// wait for here.
    public func flush() async {}

    /// Records the fingerprint of a job that just succeeded, with its parts and its outputs' stamps.
    public func recordFingerprint(job: String, fingerprint: String, parts: [String: String], outputs: [String: String]) {
        append(.fingerprint(job: job, Fingerprint(fingerprint: fingerprint, parts: parts, outputs: outputs)))
    }

    /// Notes that this session checks whether its jobs are up to date and records each check
    /// (``recordCheck(job:fingerprint:reason:)``). Call it before the run starts. A session
    /// that does not is recorded as having checked nothing, so that a reader can tell "nothing
    /// was checked: every job runs" from "no reason was recorded".
    public func willRecordChecks() {
        condition.withLock { checksJobs = true }
    }

    /// Keeps `graph` (the file's lanes, needs and commands) as this session's, written with its
    /// start. Call it before the run starts; a session without one is drawn with the graph of
    /// the last earlier session of the workflow that has one.
    public func recordGraph(_ graph: HistoryGraph) {
        condition.withLock { self.graph = graph }
    }

    /// Records that a job was checked as it was about to start: its fingerprint, and why it
    /// runs in the words of `sequencer run --explain` ("input a.c changed"), nil when it was up
    /// to date. Read back by ``SQLiteJournal/jobChecks(of:)``.
    public func recordCheck(job: String, fingerprint: String, reason: String?) {
        append(.check(job: job, fingerprint: fingerprint, reason: reason))
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
        journal.lock.release(lockHolder)
    }

    func append(_ entry: Entry) {
        condition.withLock { pending.append(entry) }
    }

    // MARK: - Results

    static func encodeResult(of record: JobRecord) -> (Data?, JobLog.ResultKind) {
        guard record.hasValue, record.status == .succeeded || record.status == .upToDate else { return (nil, .none) }
        guard let value = record.value as? any Encodable, let data = try? JSONEncoder().encode(value) else {
            return (nil, .notKept)
        }
        return (data, .json)
    }

    static func describeError(of record: JobRecord) -> String? {
        guard let code = record.errorCode else { return nil }
        if let cause = record.cause { return "needed job '\(cause)' did not succeed" }
        return record.underlying.map { "\($0)" } ?? code.description
    }
}

/// A result kept as JSON.
struct JSONResult: EncodedResult {
    let data: Data

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}
