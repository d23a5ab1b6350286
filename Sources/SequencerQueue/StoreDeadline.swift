import Sequencer

/// A store call that a worker waits for a bounded time: past it, the call is abandoned (it runs
/// on, in a task of its own) and the worker gets a ``QueueError`` with code
/// ``QueueError/Code/database``, so that it pauses, reports the trouble and tries again.
///
/// A connection cut while a statement was under way has been seen to leave the statement
/// unanswered for good (postgres-nio, through a `pg_ctl restart`): the worker's turn waited
/// forever, and so did its heartbeat, while the leases it could not renew ran out and other
/// workers took its jobs. An abandoned turn may still commit: its claims are then jobs that this
/// worker does not know it holds, whose leases no heartbeat renews (they run again once they
/// expire), and its ends, sent again, are refused as already recorded.
enum StoreDeadline {
    static func value<T: Sendable>(
        within limit: Duration, clock: QueueClock, store: String, doing: String,
        _ call: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let pending = Locked<CheckedContinuation<T, any Error>?>(nil)
        let resume: @Sendable (Result<T, any Error>) -> Void = { result in
            pending.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume(with: result)
        }
        return try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0 = continuation }
            let work = Task { try await call() }
            let timer = Task {
                try await clock.sleep(for: limit)
                resume(.failure(QueueError(code: .database, location: store, message: "\(doing): no answer within \(limit)")))
            }
            Task {
                let result = await work.result
                timer.cancel()
                resume(result)
            }
        }
    }
}
