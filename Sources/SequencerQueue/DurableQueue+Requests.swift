public import Foundation
public import Sequencer

extension DurableQueue {
    /// A job to add with ``enqueue(_:)``: the arguments of
    /// ``enqueue(_:_:key:needs:priority:lane:timeout:retry:runAt:)``, its input already encoded.
    ///
    /// ```swift
    /// let ids = try await queue.enqueue(try photos.map { try DurableQueue.Request("upload", Upload(photo: $0)) })
    /// ```
    public struct Request: Sendable {
        /// The job, its run time still to set.
        let job: NewDurableJob
        /// Not before this time; nil: when it is enqueued.
        let runAt: Date?

        /// A job of `kind`, with the same arguments as the one-job `enqueue`.
        /// - Throws: when `input` does not encode as JSON.
        public init<Input: Encodable & Sendable>(
            _ kind: String, _ input: Input, key: String? = nil, needs: [DurableJobID] = [], priority: Priority = .utility,
            lane: String? = nil, timeout: Duration? = nil, retry: RetryPolicy = .none, runAt: Date? = nil
        ) throws {
            job = NewDurableJob(
                kind: kind, input: try JSONEncoder().encode(Wrapped(input)), key: key, needs: needs, priority: priority,
                lane: lane, timeout: timeout, retry: StoredRetry(retry), runAt: 0)
            self.runAt = runAt
        }
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
        let jobs = requests.map { request in
            var job = request.job
            job.runAt = request.runAt.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? now
            return job
        }
        let ids = try await store.enqueue(jobs, now: now)
        doorbell.ring()
        guard ids.count == jobs.count else {
            throw QueueError(code: .database, location: "\(store)", message: "the store returned \(ids.count) IDs for \(jobs.count) jobs")
        }
        return ids
    }
}
