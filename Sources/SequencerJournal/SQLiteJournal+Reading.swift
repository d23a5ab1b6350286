import Foundation
internal import GRDB
public import SequencerHistory

extension SQLiteJournal {
    /// The runs, newest first: of `workflow` only when it is given; at most `limit`.
    public func runs(workflow: String? = nil, limit: Int? = nil) throws -> [JournalRun] {
        try read { db in
            var sql = "SELECT * FROM runs"
            var arguments: StatementArguments = []
            if let workflow {
                sql += " WHERE workflow = ?"
                arguments += [workflow]
            }
            sql += " ORDER BY id DESC"
            if let limit {
                sql += " LIMIT ?"
                arguments += [limit]
            }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.run(from:))
        }
    }

    /// The IDs of `workflow`'s newest `limit` runs, newest first (its index alone).
    public func runIDs(workflow: String, limit: Int) throws -> [Int64] {
        try read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM runs WHERE workflow = ? ORDER BY id DESC LIMIT ?", arguments: [workflow, limit])
        }
    }

    /// The run `id`, or nil.
    public func run(_ id: Int64) throws -> JournalRun? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM runs WHERE id = ?", arguments: [id]).map(Self.run(from:)) }
    }

    /// The jobs of run `id` that the journal has heard of, as their last records say, in the
    /// order of their positions.
    public func jobs(of id: Int64) throws -> [JournalJob] {
        try read { db in try JobLog.jobs(db, run: id, path: path) }
    }

    /// The names of the jobs run `id` was started with (those of its first session, then any
    /// a resume added), in position order; jobs added while it ran are not among them.
    public func jobNames(of id: Int64) throws -> [String] {
        try read { db in
            var names: [String] = []
            var seen: Set<String> = []
            for data in try Data.fetchAll(db, sql: "SELECT names FROM run_sessions WHERE run_id = ? ORDER BY session", arguments: [id]) {
                guard let list = JobLog.unpackNames(data) else { throw JobLog.damaged(path, run: id) }
                for name in list where seen.insert(name).inserted { names.append(name) }
            }
            return names
        }
    }

    /// The attempts recorded for run `id` (by the command line), by job, then attempt.
    public func attempts(of id: Int64) throws -> [JournalAttempt] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM attempts WHERE run_id = ? ORDER BY name, attempt", arguments: [id]).map { row in
                JournalAttempt(
                    job: row["name"], attempt: row["attempt"], startedAt: row["started_at"], endedAt: row["ended_at"],
                    exit: row["exit"], exitCode: row["exit_code"], signal: row["signal"], output: row["output"])
            }
        }
    }

    /// Whether another process is recording a run in this journal now.
    public var isRecordingElsewhere: Bool { lock.isHeldElsewhere() }

    /// The process recording a run in this journal now, if another one is.
    public var recordingProcess: Int32? { lock.holdingProcess() }

    /// The run another process records in this journal now: the one it names in the lock
    /// file (a resumed run, whichever it is), or the newest run when it names none (a
    /// `sequencer` from before runs were named); nil when no other process holds the journal.
    ///
    /// Pass it to ``JournalRun/state(recordingRun:)``: a run recorded as running that is not
    /// this one was interrupted.
    public func recordingRun() throws -> Int64? {
        guard let holder = lock.heldElsewhere() else { return nil }
        if let run = holder.run { return run }
        return try runs(limit: 1).first?.id
    }

    /// The fingerprints of the last successes of `workflow`'s jobs, by job.
    ///
    /// - Parameter withParts: Whether to read each fingerprint's parts, which only explaining a
    ///   change needs; without them (`Fingerprint.parts` is then empty), a no-op run of a
    ///   large file reads a quarter of the bytes.
    public func fingerprints(workflow: String, withParts: Bool = true) throws -> [String: Fingerprint] {
        try read { db in
            var fingerprints: [String: Fingerprint] = [:]
            // Columns by position, read straight from the statement: a no-op run reads a row per job.
            let rows = try Row.fetchCursor(
                db, sql: "SELECT name, fingerprint, \(withParts ? "parts" : "''"), outputs FROM fingerprints WHERE workflow = ?",
                arguments: [workflow])
            while let row = try rows.next() {
                fingerprints[row[0]] = Fingerprint(
                    fingerprint: row[1], partsText: row[2], outputsText: row[3])
            }
            return fingerprints
        }
    }

    /// How long each job of `workflow` took in its last successful attempt, in nanoseconds, by
    /// job: one query over the runs the journal keeps. A run's scheduler reads it to start
    /// the jobs with the longest remaining path first; a no-op run does not need it.
    public func lastSuccessDurations(workflow: String) throws -> [String: Int64] {
        try read { db in
            var durations: [String: Int64] = [:]
            // SQLite gives the other columns of the row holding MAX(run_id): each job's latest success.
            let rows = try Row.fetchCursor(
                db, sql: """
                    SELECT name, ended_at - started_at, MAX(run_id) FROM attempts
                    WHERE exit_code = 0 AND run_id IN (SELECT id FROM runs WHERE workflow = ?)
                    GROUP BY name
                    """,
                arguments: [workflow])
            while let row = try rows.next() {
                let duration: Int64 = row[1]
                durations[row[0]] = max(0, duration)
            }
            return durations
        }
    }

    /// The state the files were in when every job of `workflow` was last found up to date
    /// (encoded by `UpToDateState`), if it is still kept: any change to the workflow's
    /// fingerprints drops it.
    public func upToDateState(workflow: String) throws -> [UInt8]? {
        try read { db in try Data.fetchOne(db, sql: "SELECT state FROM up_to_date_states WHERE workflow = ?", arguments: [workflow]).map { [UInt8]($0) } }
    }

    /// A number that changes whenever another connection (another process, or another
    /// `SQLiteJournal` of the same file) commits to the journal (`PRAGMA data_version`): when
    /// it is the same before and after some reads, those reads are still current.
    public func dataVersion() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }

    /// The cache of file hashes: each file's stamp when it was hashed, and its hash.
    public func fileHashes() throws -> [String: (stamp: FileStamp, hash: String)] {
        try read { db in
            var hashes: [String: (stamp: FileStamp, hash: String)] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM file_hashes")
            while let row = try rows.next() {
                hashes[row["path"]] = (FileStamp(size: row["size"], modified: row["mtime"], inode: row["inode"]), row["hash"])
            }
            return hashes
        }
    }

    /// Deletes all but the newest `keep` runs of each workflow (all workflows when nil), with
    /// their jobs and attempts. Returns the deleted runs. Fingerprints stay: they belong to
    /// the workflow, not to a run.
    /// - Throws: ``JournalError/Code/busy`` while another process records a run.
    public func deleteRuns(keeping keep: Int, workflow: String? = nil) throws -> [JournalRun] {
        let holder = try acquireForWriting()
        defer { lock.release(holder) }
        let doomed = try read { db in
            if let workflow {
                // One workflow's, by its index: a run that keeps 100 deletes one each time.
                return try Row.fetchAll(
                    db, sql: "SELECT * FROM runs WHERE workflow = ? ORDER BY id DESC LIMIT -1 OFFSET ?",
                    arguments: [workflow, max(0, keep)]
                ).map(Self.run(from:)).reversed().map { $0 }
            }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM runs AS r WHERE
                        (SELECT count(*) FROM runs AS n WHERE n.workflow = r.workflow AND n.id > r.id) >= ?
                    ORDER BY id
                    """,
                arguments: [max(0, keep)]
            ).map(Self.run(from:))
        }
        try write { db in
            for run in doomed {
                for table in ["attempts", "job_details", "job_log", "job_checks", "run_sessions"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE run_id = ?", arguments: [run.id])
                }
                try db.execute(sql: "DELETE FROM runs WHERE id = ?", arguments: [run.id])
            }
            // The graphs no session names any more.
            if try db.tableExists("graphs") {
                try db.execute(sql: "DELETE FROM graphs WHERE digest NOT IN (SELECT graph FROM run_sessions WHERE graph IS NOT NULL)")
            }
        }
        return doomed
    }

    static func run(from row: Row) -> JournalRun {
        JournalRun(
            id: row["id"], workflow: row["workflow"], info: row["info"], status: row["status"],
            startedAt: row["started_at"], endedAt: row["ended_at"], jobCount: row["job_count"],
            succeeded: row["succeeded"], failed: row["failed"], skipped: row["skipped"],
            cancelled: row["cancelled"], timedOut: row["timed_out"], sessions: row["sessions"])
    }
}

extension SQLiteJournal {
    /// Gives the space of deleted runs back to the file system (`VACUUM`).
    public func compact() throws {
        do {
            try database.vacuum()
        } catch {
            throw JournalError(code: .database, path: path, message: "compacting the journal failed: \(Self.describe(error))")
        }
    }
}

extension SQLiteJournal {
    /// Deletes all but the newest `keep` runs of each workflow file (of `workflow` only, when
    /// given), with their output directories (`.sequencer/output/RUN` beside the file).
    /// - Returns: the deleted runs, and the output directories that were deleted.
    public func deleteRunsAndOutput(keeping keep: Int, workflow: String? = nil) throws -> (runs: [JournalRun], directories: [String]) {
        let deleted = try deleteRuns(keeping: keep, workflow: workflow)
        var directories: [String] = []
        for run in deleted {
            let directory = (run.workflow as NSString).deletingLastPathComponent + "/.sequencer/output/\(run.id)"
            if (try? FileManager.default.removeItem(atPath: directory)) != nil { directories.append(directory) }
        }
        return (deleted, directories)
    }
}
