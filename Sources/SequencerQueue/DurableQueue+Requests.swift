public import Foundation
public import Sequencer

extension DurableQueue {
    /// A job to add with ``enqueue(_:)-([DurableQueue.Request])``: the arguments of
    /// ``enqueue(_:_:key:needs:priority:lane:timeout:retry:runAt:)``, its input already encoded.
    ///
    /// ```swift
    /// let ids = try await queue.enqueue(try photos.map { try DurableQueue.Request("upload", Upload(photo: $0)) })
    /// ```
    public struct Request: Sendable {
        /// The job, its run time still to set.
        var job: NewDurableJob
        /// Not before this time; nil: when it is enqueued.
        let runAt: Date?

        /// A job of `kind`, with the same arguments as the one-job `enqueue`.
        /// - Throws: when `input` does not encode as JSON.
        public init<Input: Encodable & Sendable>(
            _ kind: String, _ input: Input, key: String? = nil, needs: [DurableJobID] = [], priority: Priority = .utility,
            lane: String? = nil, timeout: Duration? = nil, retry: RetryPolicy = .none, runAt: Date? = nil
        ) throws {
            job = NewDurableJob(
                kind: kind, input: try SmallJSON.encode(input, small: SmallJSON.handles(Input.self), with: JSONEncoder()), key: key, needs: needs, priority: priority,
                lane: lane, timeout: timeout, retry: StoredRetry(retry), runAt: 0)
            self.runAt = runAt
        }
    }

    /// Jobs to enqueue together with `enqueue(_:)` (with a batch), with needs among them: a graph, added whole in one
    /// transaction or not at all (a crash half-way through enqueueing leaves no half graph).
    ///
    /// ```swift
    /// var batch = DurableQueue.Batch()
    /// let fetch = try batch.add("fetch", Fetch(page: 7))
    /// let parse = try batch.add("parse", Parse(), needs: [fetch])
    /// try batch.add("index", Index(), needs: [fetch, parse], needsEnqueued: [schema])
    /// let ids = try await queue.enqueue(batch)       // ids[parse.index] is parse's ID
    /// ```
    public struct Batch: Sendable {
        /// A job of the batch, before it has an ID: what `needs:` of a later job takes.
        public struct Job: Hashable, Sendable {
            /// Its place in the batch, and in the IDs that `enqueue(_:)` returns.
            public let index: Int
            let batch: UUID
        }

        private let identity = UUID()
        private(set) var requests: [Request] = []

        public init() {}

        /// How many jobs it has.
        public var count: Int { requests.count }

        /// Adds a job, with the arguments of ``DurableQueue/enqueue(_:_:key:needs:priority:lane:timeout:retry:runAt:)``;
        /// `needs` are jobs added to this batch before it, `needsEnqueued` jobs already in the
        /// store.
        /// - Throws: when `input` does not encode as JSON; ``QueueError/Code/unknownNeed`` for a
        ///   job of another batch.
        @discardableResult
        public mutating func add<Input: Encodable & Sendable>(
            _ kind: String, _ input: Input, key: String? = nil, needs: [Job] = [], needsEnqueued: [DurableJobID] = [],
            priority: Priority = .utility, lane: String? = nil, timeout: Duration? = nil, retry: RetryPolicy = .none,
            runAt: Date? = nil
        ) throws -> Job {
            if let foreign = needs.first(where: { $0.batch != identity }) {
                throw QueueError(
                    code: .unknownNeed, location: "batch",
                    message: "a job of kind '\(kind)' needs job \(foreign.index) of another batch")
            }
            var request = try Request(
                kind, input, key: key, needs: needsEnqueued, priority: priority, lane: lane, timeout: timeout, retry: retry,
                runAt: runAt)
            request.job.needsInBatch = needs.map(\.index)
            requests.append(request)
            return Job(index: requests.count - 1, batch: identity)
        }
    }

    /// Enqueues a batch's jobs, in order, in one transaction: all of them or, when one is
    /// refused, none. Returns each one's ID, at its ``Batch/Job/index`` (for a key that a live
    /// job has, that job's; a later job that needs it needs that job).
    /// - Throws: ``QueueError`` for a need the store does not have, an undeclared lane or an
    ///   empty key; then nothing was added.
    @discardableResult
    public func enqueue(_ batch: Batch) async throws -> [DurableJobID] {
        try await enqueue(batch.requests)
    }

    /// Adds jobs, in order, in one transaction: all of them or, when one is refused, none.
    /// Returns each one's ID (for a key that a live job has, that job's; a key given twice in
    /// the batch returns the first one's).
    ///
    /// One transaction (one sync to disk) for the batch: much faster than one `enqueue` per job.
    /// A job's `needs` name jobs enqueued before the call.
    /// - Throws: ``QueueError`` for a need the store does not have, an undeclared lane or an
    ///   empty key; then nothing was added.
    @discardableResult
    public func enqueue(_ requests: [Request]) async throws -> [DurableJobID] {
        guard !requests.isEmpty else { return [] }
        let now = clock.now()
        let (jobs, ids) = try await tracer.enqueueing(requests.map(\.job.kind)) { context in
            let jobs = Self.jobs(requests, now: now, traceContext: context)
            return (jobs, try await store.enqueue(jobs, now: now))
        }
        doorbell.ring()
        for job in jobs { metrics.enqueued(kind: job.kind, lane: job.lane) }
        guard ids.count == jobs.count else {
            throw QueueError(code: .database, location: "\(store)", message: "the store returned \(ids.count) IDs for \(jobs.count) jobs")
        }
        return ids
    }

    /// The requests' jobs, each to run at its time, or `now`.
    static func jobs(_ requests: [Request], now: Int64, traceContext: String? = nil) -> [NewDurableJob] {
        requests.map { request in
            var job = request.job
            job.runAt = request.runAt.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? now
            job.traceContext = traceContext
            return job
        }
    }

    /// Creates a run of the batch's jobs, each with its name in `names` (in the batch's order),
    /// in one transaction: see ``RunStore``.
    /// - Throws: ``QueueError`` when the store keeps no runs, when `names` and the batch differ
    ///   in length, or as `enqueue(_:)`.
    public func createRun(_ run: NewQueueRun, jobs batch: Batch, names: [String]) async throws -> (QueueRunID, [DurableJobID]) {
        guard let runs = store as? any RunStore else {
            throw QueueError(code: .invalidOption, location: "\(store)", message: "this store does not keep runs")
        }
        guard names.count == batch.count else {
            throw QueueError(code: .invalidOption, location: "\(store)", message: "\(names.count) names for \(batch.count) jobs")
        }
        let now = clock.now()
        let (jobs, created) = try await tracer.enqueueing(batch.requests.map(\.job.kind)) { context in
            let jobs = Self.jobs(batch.requests, now: now, traceContext: context)
            return (jobs, try await runs.createRun(run, jobs: Array(zip(names, jobs)), now: now))
        }
        doorbell.ring()
        for job in jobs { metrics.enqueued(kind: job.kind, lane: job.lane) }
        return created
    }
}
