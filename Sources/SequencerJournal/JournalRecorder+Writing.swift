import Foundation
internal import GRDB
@_spi(Recording) import Sequencer
import SequencerHistory

/// The recorder's write loop: a thread of its own takes the run's records every few
/// milliseconds and writes them in one transaction.
extension JournalRecorder {
    func writeLoop() {
        var sequence: Int64 = 0
        endedHere = [Bool](repeating: false, count: condition.withLock { statuses.count })
        let (log, session) = condition.withLock { (self.log, self.session) }
        while true {
            let (entries, report) = condition.withLock { () -> ([Entry], RunReport?) in
                if self.report == nil { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.interval)) }
                defer { pending.removeAll(keepingCapacity: true) }
                return (pending, self.report)
            }
            // Taken after the report arrived, the records are the run's last.
            let batch = log?.take()
            // The batch does not say when its jobs started: when it was taken is within an
            // interval of it, which is what a reader following the run (the web page) shows.
            let takenAt = elapsed.wholeNanoseconds
            if condition.withLock({ failure == nil }), !(entries.isEmpty && batch?.isEmpty != false && report == nil) {
                do {
                    try journal.write { db in
                        if let batch, !batch.isEmpty {
                            sequence += 1
                            try writeJobs(batch, session: session, sequence: sequence, takenAt: takenAt, db)
                        }
                        try write(entries, session: session, db)
                        if let report { try endRun(report, db) }
                    }
                } catch {
                    let failure = error as? JournalError ?? JournalError(code: .database, path: journal.path, message: "\(error)")
                    condition.withLock { self.failure = failure }
                }
            }
            if report != nil { break }
        }
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    func writeJobs(_ batch: RunLogBatch, session: Int64, sequence: Int64, takenAt: Int64, _ db: Database) throws {
        var records: [JobLog.Record] = []
        records.reserveCapacity(batch.started.count + batch.ended.count)
        // A job that started and ended within the batch needs only its end.
        for record in batch.ended where record.index < endedHere.count { endedHere[record.index] = true }
        defer { for record in batch.ended where record.index < endedHere.count { endedHere[record.index] = false } }
        for position in batch.started where position >= endedHere.count || !endedHere[position] {
            records.append(JobLog.Record(
                position: UInt32(position), ended: false, status: 0, flags: 0, attempts: 0, startedAt: takenAt, endedAt: -1))
        }
        let details = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO job_details (run_id, session, position, name, parent, code, error, result, result_kind)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var newStatuses: [(Int, UInt8)] = []
        var newChildStatuses: [(String, UInt8)] = []
        newStatuses.reserveCapacity(batch.ended.count)
        for record in batch.ended where !record.restored {
            let status = JobLog.code(of: record.status)
            let isChild = record.isChild
            let (result, kind) = Self.encodeResult(of: record)
            let error = Self.describeError(of: record)
            let code = record.errorCode?.description
            let hasDetails = isChild || code != nil || error != nil || kind != .none
            records.append(JobLog.Record(
                position: UInt32(record.index), ended: true, status: status,
                flags: (record.status == .upToDate ? JobLog.Record.upToDate : 0) | (hasDetails ? JobLog.Record.hasDetails : 0),
                attempts: UInt32(record.attempts),
                startedAt: record.startedAt?.wholeNanoseconds ?? -1, endedAt: record.endedAt?.wholeNanoseconds ?? -1))
            if hasDetails {
                try details.execute(arguments: [
                    runID, session, record.index, isChild ? batch.id(of: record).description : nil, record.parent?.description,
                    code, error, result, kind.rawValue,
                ])
            }
            if isChild {
                newChildStatuses.append((batch.id(of: record).description, status))
            } else {
                newStatuses.append((record.index, status))
            }
        }
        try db.execute(
            sql: "INSERT INTO job_log (run_id, session, seq, records) VALUES (?, ?, ?, ?)",
            arguments: [runID, session, sequence, JobLog.pack(records)])
        let counts = condition.withLock {
            for (index, status) in newStatuses { setStatus(status, of: index) }
            for (name, status) in newChildStatuses { setStatus(status, ofChild: name) }
            return tally
        }
        // The counts go with the records they count: `runs` then counts what `resume` restores.
        try writeCounts(counts, db)
    }

    /// Sets the status of the job at `index` and keeps ``tally``; call it holding `condition`.
    func setStatus(_ status: UInt8, of index: Int) {
        let old = statuses[index]
        if Int(old) < tally.count { tally[Int(old)] -= 1 }
        statuses[index] = status
        if Int(status) < tally.count { tally[Int(status)] += 1 }
    }

    /// Sets the status of the child `name` and keeps ``tally``; call it holding `condition`.
    func setStatus(_ status: UInt8, ofChild name: String) {
        if let old = childStatuses[name], Int(old) < tally.count { tally[Int(old)] -= 1 }
        childStatuses[name] = status
        if Int(status) < tally.count { tally[Int(status)] += 1 }
    }

    /// Writes the run's counts (by status code) into its row.
    func writeCounts(_ counts: [Int], _ db: Database) throws {
        try db.execute(
            sql: "UPDATE runs SET succeeded = ?, failed = ?, cancelled = ?, skipped = ?, timed_out = ? WHERE id = ?",
            arguments: [counts[1], counts[2], counts[3], counts[4], counts[5], runID])
    }

    /// Writes the caller's records: one statement each, prepared once per connection (a run
    /// of many jobs writes an attempt, a check and a fingerprint per job).
    func write(_ entries: [Entry], session: Int64, _ db: Database) throws {
        for entry in entries {
            switch entry {
            case .attempt(let attempt):
                try db.cachedStatement(
                    sql: """
                        INSERT OR REPLACE INTO attempts (run_id, name, attempt, started_at, ended_at, exit, exit_code, signal, output)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(
                    arguments: [
                        runID, attempt.job, attempt.attempt, attempt.startedAt, attempt.endedAt, attempt.exit,
                        attempt.exitCode, attempt.signal, attempt.output,
                    ])
            case .fingerprint(let job, let fingerprint):
                try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO fingerprints (workflow, name, fingerprint, parts, outputs, run_id) VALUES (?, ?, ?, ?, ?, ?)"
                ).execute(
                    arguments: [workflow, job, fingerprint.fingerprint, fingerprint.partsText, fingerprint.outputsText, runID])
            case .fileHash(let path, let stamp, let hash):
                try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO file_hashes (path, size, mtime, inode, hash) VALUES (?, ?, ?, ?, ?)"
                ).execute(arguments: [path, stamp.size, stamp.modified, stamp.inode, hash])
            case .check(let job, let fingerprint, let reason):
                try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO job_checks (run_id, session, name, fingerprint, reason) VALUES (?, ?, ?, ?, ?)"
                ).execute(arguments: [runID, session, job, fingerprint, reason])
            }
        }
    }

    func endRun(_ report: RunReport, _ db: Database) throws {
        let ended = origin + report.duration.wholeNanoseconds
        try db.execute(
            sql: "UPDATE runs SET status = ?, ended_at = ? WHERE id = ?", arguments: [report.status.rawValue, ended, runID])
        try writeCounts(condition.withLock { tally }, db)
    }
}
