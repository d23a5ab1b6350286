import Foundation
internal import Logging
internal import PostgresNIO
import Sequencer
import SequencerQueue

extension PostgresQueueStore {
    /// Enqueues a batch of jobs without keys in a fixed few statements, whatever its size: the
    /// IDs are drawn from the table's sequence first (so a job can name the jobs before it in
    /// the batch), the lanes and the needs outside the batch are read once, then every row is
    /// inserted by one statement and every `needs` edge by another. Returns the IDs in the
    /// batch's order, and whether a job is available.
    ///
    /// The same checks as ``insert(_:now:location:_:_:)``, job after job: the first job that
    /// fails one is the error.
    static func insert(
        keyless jobs: [NewDurableJob], now: Int64, location: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> ([DurableJobID], available: Bool) {
        let drawn = try await connection.rows(
            "SELECT nextval(pg_get_serial_sequence('sequencer.jobs', 'id')) FROM generate_series(1, \(jobs.count))", logger)
        let ids = try drawn.map { try $0.decode(Int64.self) }.sorted().map(DurableJobID.init)
        let resolved = try jobs.enumerated().map { position, job in
            try job.resolvingBatchNeeds(ids, position: position, location: location)
        }
        let lanes = Set(resolved.compactMap(\.lane)).sorted()
        var declared = Set<String>()
        if !lanes.isEmpty {
            for row in try await connection.rows("SELECT name FROM sequencer.lanes WHERE name = ANY(\(lanes))", logger) {
                declared.insert(try row.decode(String.self))
            }
        }
        let inBatch = Set(ids.map(\.rawValue))
        let outside = Set(resolved.flatMap { $0.needs.map(\.rawValue) }).subtracting(inBatch).sorted()
        var states = try await needStates(outside, connection, logger)
        var rows: [InsertedRow] = []
        var edges: (needs: [Int64], jobs: [Int64]) = ([], [])
        for (job, id) in zip(resolved, ids) {
            if let lane = job.lane, !declared.contains(lane) {
                throw QueueError(code: .unknownLane, location: location, message: "a job of kind '\(job.kind)' uses lane '\(lane)', which no one declared with lane(_:width:)")
            }
            let (live, cause) = try standing(of: job, states, location: location)
            let state: DurableJobState = cause != nil ? .skipped : live.isEmpty ? .available : .waiting
            states[id.rawValue] = state
            rows.append(InsertedRow(job, id: id.rawValue, state: state, pending: live.count, cause: cause, now: now))
            edges.needs += live
            edges.jobs += Array(repeating: id.rawValue, count: live.count)
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let document = String(decoding: try encoder.encode(rows), as: UTF8.self)
        try await connection.rows(
            """
            INSERT INTO sequencer.jobs (id, kind, input, state, priority, lane, pending_needs, run_at, retry, timeout_ms,
                                        enqueued_at, cause, error_code, error, ended_at, trace_context)
            OVERRIDING SYSTEM VALUE
            SELECT id, kind, decode(input, 'base64'), state, priority, lane, pending_needs, run_at, retry, timeout_ms,
                   \(now), cause, error_code, error, ended_at, trace_context
            FROM jsonb_to_recordset(\(document)::jsonb) AS r(
                id BIGINT, kind TEXT, input TEXT, state INTEGER, priority INTEGER, lane TEXT, pending_needs INTEGER,
                run_at BIGINT, retry TEXT, timeout_ms BIGINT, cause BIGINT, error_code TEXT, error TEXT, ended_at BIGINT,
                trace_context TEXT)
            """, logger)
        if !edges.needs.isEmpty {
            try await connection.rows(
                "INSERT INTO sequencer.needs (need, job) SELECT * FROM unnest(\(edges.needs)::bigint[], \(edges.jobs)::bigint[])", logger)
        }
        return (ids, rows.contains { $0.state == DurableJobState.available.rawValue })
    }

    /// A new job's row, as JSON for `jsonb_to_recordset` (snake case; a nil field is left out:
    /// NULL).
    struct InsertedRow: Encodable {
        var id: Int64
        var kind: String
        /// Base64, as `JSONEncoder` writes `Data`.
        var input: Data
        var state: Int
        var priority: Int
        var lane: String?
        var pendingNeeds: Int
        var runAt: Int64
        var retry: String?
        var timeoutMs: Int64?
        var cause: Int64?
        var errorCode: String?
        var error: String?
        var endedAt: Int64?
        var traceContext: String?

        init(_ job: NewDurableJob, id: Int64, state: DurableJobState, pending: Int, cause: Int64?, now: Int64) {
            self.id = id
            kind = job.kind
            input = job.input
            self.state = state.rawValue
            priority = Int(job.priority.rawValue)
            lane = job.lane
            pendingNeeds = pending
            runAt = job.runAt
            retry = job.retry.stored
            timeoutMs = job.timeout.map(QueueClock.milliseconds)
            self.cause = cause
            errorCode = cause == nil ? nil : "needFailed"
            error = cause.map(StoreText.needFailed)
            endedAt = cause == nil ? nil : now
            traceContext = job.traceContext
        }
    }

    /// The live needs of a job about to be enqueued (waiting, available or running: its
    /// counter), and the first that did not succeed (it is skipped), from its needs' states.
    /// - Throws: ``QueueError`` when a need is not in `states`.
    static func standing(
        of job: NewDurableJob, _ states: [Int64: DurableJobState], location: String
    ) throws -> (live: [Int64], cause: Int64?) {
        var live: [Int64] = []
        var cause: Int64?
        for need in Set(job.needs.map(\.rawValue)).sorted() {
            guard let state = states[need] else {
                throw QueueError(code: .unknownNeed, location: location, message: "a job of kind '\(job.kind)' needs job #\(need), which the queue does not have (never enqueued, or pruned after it ended)")
            }
            switch state {
            case .succeeded: break
            case .waiting, .available, .running: live.append(need)
            case .failed, .cancelled, .skipped: cause = min(cause ?? need, need)
            }
        }
        return (live, cause)
    }

}
