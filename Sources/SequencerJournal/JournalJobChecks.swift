internal import GRDB

/// How a run's sessions checked its jobs (``JournalRecorder/recordCheck(job:fingerprint:reason:)``):
/// each checked job's fingerprint, and why it ran.
public struct JournalJobChecks: Sendable, Hashable {
    public struct Check: Sendable, Hashable {
        /// The job's fingerprint when it was checked (see `UpToDate`).
        public var fingerprint: String
        /// Why it ran, in the words of `sequencer run --explain`; nil when it was up to date.
        public var reason: String?

        public init(fingerprint: String, reason: String?) {
            self.fingerprint = fingerprint
            self.reason = reason
        }
    }

    /// Each checked job, from the last session that checked it (a resumed run's later session
    /// checks only the jobs it runs again).
    public var jobs: [String: Check]
    /// Whether the run's last session checked its jobs: nil when it was recorded before the
    /// journal kept checks (schema version 4), false when it checked none, so that every job
    /// ran (no job of its file declares outputs, or a program other than `sequencer run`
    /// recorded it).
    public var checked: Bool?

    public init(jobs: [String: Check] = [:], checked: Bool? = nil) {
        self.jobs = jobs
        self.checked = checked
    }
}

extension SQLiteJournal {
    /// How run `id` checked its jobs. A journal of an older schema, read without migrating it
    /// (``init(readingOnly:)``), has no checks: its `checked` is nil.
    public func jobChecks(of id: Int64) throws -> JournalJobChecks {
        try read { db in
            guard try db.tableExists("job_checks") else { return JournalJobChecks() }
            var jobs: [String: JournalJobChecks.Check] = [:]
            let rows = try Row.fetchAll(
                db, sql: "SELECT name, fingerprint, reason FROM job_checks WHERE run_id = ? ORDER BY session", arguments: [id])
            for row in rows { jobs[row["name"]] = JournalJobChecks.Check(fingerprint: row["fingerprint"], reason: row["reason"]) }
            let checked = try Int?.fetchOne(
                db, sql: "SELECT checked FROM run_sessions WHERE run_id = ? ORDER BY session DESC LIMIT 1", arguments: [id])
            return JournalJobChecks(jobs: jobs, checked: checked.flatMap { $0 }.map { $0 != 0 })
        }
    }

    /// The fingerprint each job of `names` had in `run`: as the run checked it, or, for a job
    /// the run did not check alone (a no-op run decides every job in one pass and records no
    /// checks), as the last earlier run of the same workflow checked it, which an up-to-date
    /// job's equals. A job never checked has none.
    public func fingerprints(of names: [String], inRun id: Int64) throws -> [String: String] {
        guard let run = try run(id) else { return [:] }
        return try fingerprints(of: names, in: run)
    }

    /// The fingerprint each job of `names` had in `run` (see ``fingerprints(of:inRun:)``).
    public func fingerprints(of names: [String], in run: JournalRun) throws -> [String: String] {
        var found = try jobChecks(of: run.id).jobs.mapValues(\.fingerprint)
        try read { db in
            guard try db.tableExists("job_checks") else { return }
            let earlier = try db.cachedStatement(sql: """
                SELECT c.fingerprint FROM job_checks AS c JOIN runs AS r ON r.id = c.run_id
                WHERE c.name = ? AND c.run_id < ? AND r.workflow = ? ORDER BY c.run_id DESC, c.session DESC LIMIT 1
                """)
            for name in names where found[name] == nil {
                found[name] = try String.fetchOne(earlier, arguments: [name, run.id, run.workflow])
            }
        }
        let wanted = Set(names)
        return found.filter { wanted.contains($0.key) }
    }
}
