import Foundation
internal import PostgresNIO
import Sequencer
public import SequencerQueue

extension PostgresQueueStore {
    public func job(_ id: DurableJobID) async throws -> DurableJob? {
        let rows = try await rows("reading job \(id)", "SELECT \(unescaped: Self.columns), output FROM sequencer.jobs WHERE id = \(id.rawValue)")
        return try rows.first.map(Self.job)
    }

    public func jobs(in states: [DurableJobState], after: DurableJobID?, limit: Int) async throws -> [DurableJob] {
        guard !states.isEmpty else { return [] }
        let rows = try await rows(
            "listing jobs",
            """
            SELECT \(unescaped: Self.columns), NULL::bytea FROM sequencer.jobs
            WHERE state = ANY(\(states.map(\.rawValue))) AND id > \(after?.rawValue ?? 0) ORDER BY id LIMIT \(limit)
            """)
        return try rows.map(Self.job)
    }

    public func counts() async throws -> [DurableJobState: Int] {
        var counts: [DurableJobState: Int] = [:]
        for row in try await rows("counting jobs", "SELECT state, count(*) FROM sequencer.jobs GROUP BY state") {
            let (raw, count) = try row.decode((Int, Int).self)
            if let state = DurableJobState(rawValue: raw) { counts[state] = count }
        }
        return counts
    }

    public func nextRunTime(kinds: [String], after now: Int64) async throws -> Int64? {
        guard !kinds.isEmpty else { return nil }
        let rows = try await rows(
            "reading the next run time",
            "SELECT min(run_at) FROM sequencer.jobs WHERE state = \(unescaped: SQLState.available) AND run_at > \(now) AND kind = ANY(\(kinds))")
        return try rows.first?.decode(Int64?.self)
    }

    static let columns = """
        id, kind, state, key, lane, priority, attempt, crashes, error_code, error, cause, enqueued_at, run_at, \
        started_at, ended_at, owner
        """

    /// A row of ``columns`` and the output; a value out of range (written by hand, say) is
    /// read as the nearest thing that makes sense, never a crash.
    static func job(_ row: PostgresRow) throws -> DurableJob {
        let cells = try row.decode(
            (Int64, String, Int, String?, String?, Int, Int, Int, String?, String?, Int64?, Int64, Int64, Int64?, Int64?, String?, Data?).self)
        return DurableJob(
            id: DurableJobID(cells.0), kind: cells.1, state: DurableJobState(rawValue: cells.2) ?? .failed, key: cells.3, lane: cells.4,
            priority: UInt8(exactly: cells.5).flatMap(Priority.init(rawValue:)) ?? .utility, attempts: cells.6, crashes: cells.7,
            errorCode: cells.8, error: cells.9, cause: cells.10.map(DurableJobID.init), enqueuedAt: cells.11, runAt: cells.12,
            startedAt: cells.13, endedAt: cells.14, owner: cells.15, output: cells.16)
    }
}
