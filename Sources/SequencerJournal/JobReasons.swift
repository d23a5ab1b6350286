internal import GRDB

/// Why the jobs of a run ran, as its sessions recorded it (``JournalRecorder/recordReason(job:reason:)``).
public struct JournalJobReasons: Sendable, Hashable {
    /// Why each job ran, in the words of `sequencer run --explain`, from the last session that
    /// ran it (a resumed run's later session records only the jobs it ran again).
    public var reasons: [String: String]
    /// Whether the run's last session checked its jobs: nil when it was recorded before the
    /// journal kept reasons (schema version 4), false when it checked none, so that every job
    /// ran (no job of its file declares outputs, or a program other than `sequencer run`
    /// recorded it).
    public var checked: Bool?

    public init(reasons: [String: String] = [:], checked: Bool? = nil) {
        self.reasons = reasons
        self.checked = checked
    }
}

extension SQLiteJournal {
    /// Why the jobs of run `id` ran. A journal of an older schema, read without migrating it
    /// (``init(readingOnly:)``), has none: its `checked` is nil.
    public func jobReasons(of id: Int64) throws -> JournalJobReasons {
        try read { db in
            guard try db.tableExists("job_reasons") else { return JournalJobReasons() }
            var reasons: [String: String] = [:]
            let rows = try Row.fetchAll(
                db, sql: "SELECT name, reason FROM job_reasons WHERE run_id = ? ORDER BY session", arguments: [id])
            for row in rows { reasons[row["name"]] = row["reason"] }
            let checked = try Int?.fetchOne(
                db, sql: "SELECT checked FROM run_sessions WHERE run_id = ? ORDER BY session DESC LIMIT 1", arguments: [id])
            return JournalJobReasons(reasons: reasons, checked: checked.flatMap { $0 }.map { $0 != 0 })
        }
    }
}
