internal import GRDB

/// How many of a run's jobs were up to date, and how many took more than one attempt: what a
/// run's row does not count (its `skipped` holds the up-to-date jobs too).
public struct JournalJobCounts: Sendable, Hashable, Codable {
    public var upToDate = 0
    public var retried = 0

    public init(upToDate: Int = 0, retried: Int = 0) {
        self.upToDate = upToDate
        self.retried = retried
    }
}

extension SQLiteJournal {
    /// The counts of the runs `ids`, by run: from their records alone, without their jobs'
    /// names (a run of one session, the usual kind), so a page of runs costs a read of
    /// their records.
    public func jobCounts(of ids: [Int64]) throws -> [Int64: JournalJobCounts] {
        var counts: [Int64: JournalJobCounts] = [:]
        for id in ids {
            counts[id] = try read { db in try JobLog.counts(db, run: id, path: path) }
        }
        return counts
    }
}

extension JobLog {
    static func counts(_ db: Database, run: Int64, path: String) throws -> JournalJobCounts {
        let sessions = try Int.fetchOne(db, sql: "SELECT count(*) FROM run_sessions WHERE run_id = ?", arguments: [run]) ?? 0
        var counts = JournalJobCounts()
        guard sessions <= 1 else {
            // Resumed: a job's last record may be in any session, and positions differ by
            // session; by name.
            for job in try jobs(db, run: run, path: path) {
                if job.status == "upToDate" { counts.upToDate += 1 }
                if job.attempts > 1 { counts.retried += 1 }
            }
            return counts
        }
        var last: [UInt32: Record] = [:]
        let segments = try Row.fetchCursor(db, sql: "SELECT records FROM job_log WHERE run_id = ? ORDER BY seq", arguments: [run])
        while let segment = try segments.next() {
            guard let records = unpack(segment["records"]) else { throw damaged(path, run: run) }
            for record in records { last[record.position] = record }
        }
        for record in last.values {
            if record.ended, record.flags & Record.upToDate != 0 { counts.upToDate += 1 }
            if record.attempts > 1 { counts.retried += 1 }
        }
        return counts
    }
}
