import Foundation
internal import GRDB
@_spi(Recording) import Sequencer

/// How jobs are kept: packed records, many to a row, rather than a row per job.
///
/// Each start of a run (its first session, then one per resume) has a `run_sessions` row
/// with the names of its jobs in position order (`names`: each a little-endian `UInt32`
/// length and that many bytes of UTF-8). Each write of the recorder adds a `job_log` row whose
/// `records` hold ``Record``s of 28 bytes. What does not fit a record (an error, a result, a
/// child's name and parent) is a `job_details` row. A job's state is its last record: later
/// sessions, and later records, override earlier ones.
///
/// From schema version 3, the records of a run whose every job was up to date, each checked
/// at the same moment, may be one 24-byte row instead (``packUpToDate(count:startedAt:endedAt:)``):
/// a no-op run of a large file writes (and its deletion frees) next to nothing.
enum JobLog {
    /// One job starting or ending, packed (little-endian) as position (`UInt32`), kind
    /// (`UInt8`: 0 started, 1 ended), status (`UInt8`: see ``statuses``), flags (`UInt8`:
    /// 1 up to date, 2 has details), a zero byte, attempts (`UInt32`), and when it started
    /// and ended (`Int64` nanoseconds after the session started, -1 for never).
    struct Record: Equatable {
        var position: UInt32
        var ended: Bool
        var status: UInt8
        var flags: UInt8
        var attempts: UInt32
        var startedAt: Int64
        var endedAt: Int64

        static let size = 28
        static let upToDate: UInt8 = 1
        static let hasDetails: UInt8 = 2
    }

    /// Status codes of records; 0 is `running`.
    static let statuses = ["running", "succeeded", "failed", "cancelled", "skipped", "timedOut"]

    /// A status's code in ``statuses`` (written for every job: a switch, not a search).
    static func code(of status: JobStatus) -> UInt8 {
        switch status {
        case .succeeded: 1
        case .failed: 2
        case .cancelled: 3
        case .skipped, .upToDate: 4   // up to date: skipped with the `upToDate` flag
        case .timedOut: 5
        }
    }

    /// The code of a status as ``jobs(_:run:path:)`` reads it back: `upToDate` is skipped (with
    /// the flag), `running` and anything unknown 0.
    static func code(ofStored status: String) -> UInt8 {
        status == "upToDate" ? 4 : UInt8(statuses.firstIndex(of: status) ?? 0)
    }

    static func pack(_ records: [Record]) -> Data {
        var data = Data(count: records.count * Record.size)
        data.withUnsafeMutableBytes { buffer in
            var offset = 0
            for record in records {
                buffer.storeBytes(of: record.position.littleEndian, toByteOffset: offset, as: UInt32.self)
                buffer[offset + 4] = record.ended ? 1 : 0
                buffer[offset + 5] = record.status
                buffer[offset + 6] = record.flags
                buffer[offset + 7] = 0
                buffer.storeBytes(of: record.attempts.littleEndian, toByteOffset: offset + 8, as: UInt32.self)
                buffer.storeBytes(of: record.startedAt.littleEndian, toByteOffset: offset + 12, as: Int64.self)
                buffer.storeBytes(of: record.endedAt.littleEndian, toByteOffset: offset + 20, as: Int64.self)
                offset += Record.size
            }
        }
        return data
    }

    /// The records of `count` jobs, positions 0 to `count - 1`, each up to date, checked from
    /// `startedAt` to `endedAt`: "UPTD", the count (`UInt32`), and the two times (`Int64`),
    /// little-endian. Never a multiple of ``Record/size`` long, so never taken for records.
    static func packUpToDate(count: Int, startedAt: Int64, endedAt: Int64) -> Data {
        var data = Data(upToDateMagic)
        withUnsafeBytes(of: UInt32(count).littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: startedAt.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: endedAt.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    private static let upToDateMagic = Array("UPTD".utf8)

    /// The records of `data`; nil when it is damaged, or is a short up-to-date row of more
    /// jobs than its session has `names`.
    static func unpack(_ data: Data, names: Int = .max) -> [Record]? {
        if data.count == 24, data.prefix(4).elementsEqual(upToDateMagic) {
            return data.withUnsafeBytes { buffer -> [Record]? in
                let count = UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
                guard count <= names else { return nil }
                let startedAt = Int64(littleEndian: buffer.loadUnaligned(fromByteOffset: 8, as: Int64.self))
                let endedAt = Int64(littleEndian: buffer.loadUnaligned(fromByteOffset: 16, as: Int64.self))
                return (0..<count).map { position in
                    Record(
                        position: position, ended: true, status: code(of: .upToDate), flags: Record.upToDate, attempts: 1,
                        startedAt: startedAt, endedAt: endedAt)
                }
            }
        }
        guard data.count % Record.size == 0 else { return nil }
        return data.withUnsafeBytes { buffer in
            stride(from: 0, to: buffer.count, by: Record.size).map { offset in
                Record(
                    position: UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)),
                    ended: buffer[offset + 4] != 0,
                    status: buffer[offset + 5],
                    flags: buffer[offset + 6],
                    attempts: UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)),
                    startedAt: Int64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset + 12, as: Int64.self)),
                    endedAt: Int64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset + 20, as: Int64.self)))
            }
        }
    }

    static func packNames(_ names: [JobID]) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(names.count * 16)
        for name in names {
            var text = name.rawValue
            text.withUTF8 { utf8 in
                let count = UInt32(utf8.count)
                bytes.append(UInt8(truncatingIfNeeded: count))
                bytes.append(UInt8(truncatingIfNeeded: count >> 8))
                bytes.append(UInt8(truncatingIfNeeded: count >> 16))
                bytes.append(UInt8(truncatingIfNeeded: count >> 24))
                bytes.append(contentsOf: utf8)
            }
        }
        return Data(bytes)
    }

    /// The names of `data`; nil when it is damaged.
    static func unpackNames(_ data: Data) -> [String]? {
        data.withUnsafeBytes { buffer -> [String]? in
            var names: [String] = []
            var offset = 0
            while offset < buffer.count {
                guard offset + 4 <= buffer.count else { return nil }
                let length = Int(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                offset += 4
                guard offset + length <= buffer.count else { return nil }
                names.append(String(decoding: UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + length]), as: UTF8.self))
                offset += length
            }
            return names
        }
    }

    // MARK: - Reading

    /// The jobs of `run` as their last records say, in the order of their positions.
    static func jobs(_ db: Database, run: Int64, path: String) throws -> [JournalJob] {
        var sessions: [Int64: (start: Int64, names: [String])] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT session, started_at, names FROM run_sessions WHERE run_id = ?", arguments: [run]) {
            guard let names = unpackNames(row["names"]) else { throw damaged(path, run: run) }
            sessions[row["session"]] = (row["started_at"], names)
        }
        var details: [Key: Row] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM job_details WHERE run_id = ?", arguments: [run]) {
            details[Key(session: row["session"], position: row["position"])] = row
        }
        var latest: [String: (job: JournalJob, order: Int)] = [:]
        let segments = try Row.fetchCursor(
            db, sql: "SELECT session, records FROM job_log WHERE run_id = ? ORDER BY session, seq", arguments: [run])
        while let segment = try segments.next() {
            let session: Int64 = segment["session"]
            guard let (start, names) = sessions[session], let records = unpack(segment["records"], names: names.count) else {
                throw damaged(path, run: run)
            }
            for record in records {
                let position = Int(record.position)
                let detail = record.flags & Record.hasDetails != 0 ? details[Key(session: session, position: position)] : nil
                guard let name = position < names.count ? names[position] : detail?["name"] as String? else {
                    throw damaged(path, run: run)
                }
                let status = Int(record.status) < statuses.count ? statuses[Int(record.status)] : "unknown"
                let upToDate = record.flags & Record.upToDate != 0
                let job = JournalJob(
                    name: name, position: position, status: !record.ended ? "running" : upToDate ? "upToDate" : status,
                    code: detail?["code"], error: detail?["error"],
                    attempts: Int(record.attempts),
                    startedAt: record.startedAt >= 0 ? start + record.startedAt : nil,
                    endedAt: record.endedAt >= 0 ? start + record.endedAt : nil,
                    parent: detail?["parent"])
                latest[name] = (job, position)
            }
        }
        return latest.values.sorted { ($0.order, $0.job.name) < ($1.order, $1.job.name) }.map(\.job)
    }

    /// The results kept for `run`'s jobs that succeeded (or were up to date), by name: nil
    /// for a job whose result could not be kept.
    static func results(_ db: Database, run: Int64, jobs: [JournalJob]) throws -> [String: RestoredResult] {
        var kept: [String: (kind: Int, data: Data?)] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT d.session, d.position, d.name AS child, s.names, d.result, d.result_kind
                FROM job_details AS d JOIN run_sessions AS s ON s.run_id = d.run_id AND s.session = d.session
                WHERE d.run_id = ? AND d.result_kind != 0
                ORDER BY d.session
                """,
            arguments: [run])
        var names: [Int64: [String]] = [:]
        while let row = try rows.next() {
            let session: Int64 = row["session"]
            if names[session] == nil { names[session] = unpackNames(row["names"]) ?? [] }
            let position: Int = row["position"]
            let list = names[session] ?? []
            guard let name = position < list.count ? list[position] : row["child"] as String? else { continue }
            kept[name] = (row["result_kind"], row["result"])
        }
        var results: [String: RestoredResult] = [:]
        for job in jobs where job.parent == nil && (job.status == "succeeded" || job.status == "upToDate") {
            switch kept[job.name] {
            case nil: results[job.name] = .void
            case (ResultKind.json.rawValue, let data?)?: results[job.name] = .encoded(JSONResult(data: data))
            default: break  // not kept: the job runs again
            }
        }
        return results
    }

    struct Key: Hashable {
        var session: Int64
        var position: Int
    }

    enum ResultKind: Int {
        /// `Void`, or nothing to keep.
        case none = 0
        /// JSON of an `Encodable` value.
        case json = 1
        /// A value that is not `Encodable`: the job runs again on a resume.
        case notKept = 2
    }

    static func damaged(_ path: String, run: Int64) -> JournalError {
        JournalError(code: .unreadable, path: path, message: "the records of run #\(run) are damaged")
    }

    // MARK: - Migration

    /// Version 1 kept a `jobs` row per job: each run becomes one session of packed records.
    static func migrateVersion1Jobs(_ db: Database) throws {
        let runs = try Row.fetchAll(db, sql: "SELECT id, started_at FROM runs")
        for run in runs {
            let id: Int64 = run["id"]
            let start: Int64 = run["started_at"]
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM jobs WHERE run_id = ? ORDER BY position, name", arguments: [id])
            var records: [Record] = []
            for (position, row) in rows.enumerated() {
                let status: String = row["status"]
                let code: String? = row["code"]
                let result: Data? = row["result"]
                let hasDetails = code != nil || result != nil || row["parent"] as String? != nil
                records.append(Record(
                    position: UInt32(position), ended: status != "running",
                    status: UInt8(statuses.firstIndex(of: status) ?? 0),
                    flags: (code == "upToDate" ? Record.upToDate : 0) | (hasDetails ? Record.hasDetails : 0),
                    attempts: UInt32(max(0, row["attempts"] as Int)),
                    startedAt: (row["started_at"] as Int64?).map { $0 - start } ?? -1,
                    endedAt: (row["ended_at"] as Int64?).map { $0 - start } ?? -1))
                if hasDetails {
                    try db.execute(
                        sql: """
                            INSERT INTO job_details (run_id, session, position, parent, code, error, result, result_kind)
                            VALUES (?, 1, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            id, position, row["parent"] as String?, code, row["error"] as String?, result,
                            result == nil ? ResultKind.none.rawValue : ResultKind.json.rawValue,
                        ])
                }
            }
            try db.execute(
                sql: "INSERT INTO run_sessions (run_id, session, started_at, names) VALUES (?, 1, ?, ?)",
                arguments: [id, start, packNames(rows.map { JobID($0["name"] as String) })])
            try db.execute(
                sql: "INSERT INTO job_log (run_id, session, seq, records) VALUES (?, 1, 1, ?)",
                arguments: [id, pack(records)])
        }
    }
}
