import Sequencer

/// Wakes the tasks of one process that wait for a durable queue to change: its workers when a
/// job was enqueued or an attempt ended, and callers waiting for a result. Other processes'
/// changes are seen by polling.
final class Doorbell: Sendable {
    private struct State {
        var version: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waits under way, and those whose timer or cancellation came before they were
        /// registered.
        var live: Set<UInt64> = []
        var ended: Set<UInt64> = []
        var nextWaiter: UInt64 = 0
    }

    private let state = Locked(State())

    /// Changes each time the bell rings.
    var version: UInt64 { state.withLock { $0.version } }

    /// Returns the version it rang: one past a version read before means that no one else
    /// rang since.
    @discardableResult
    func ring() -> UInt64 {
        let (version, waiters) = state.withLock { state in
            state.version &+= 1
            defer { state.waiters = [:] }
            return (state.version, Array(state.waiters.values))
        }
        for waiter in waiters { waiter.resume() }
        return version
    }

    /// Waits until the bell rings after `version` was read, or `limit` passes, or the task is
    /// cancelled.
    func wait(after version: UInt64, upTo limit: Duration, clock: QueueClock) async throws {
        try await wait(after: version, until: clock.now() + QueueClock.milliseconds(limit), clock: clock)
    }

    /// Waits until the bell rings after `version` was read, or the clock reaches `deadline`
    /// (milliseconds since 1970; at once if it has), or the task is cancelled.
    func wait(after version: UInt64, until deadline: Int64, clock: QueueClock) async throws {
        let number = state.withLock { state -> UInt64 in
            state.nextWaiter &+= 1
            state.live.insert(state.nextWaiter)
            return state.nextWaiter
        }
        let timer = Task { [weak self] in
            try? await clock.sleep(until: deadline)
            self?.resume(number)
        }
        defer {
            timer.cancel()
            state.withLock { state in
                state.live.remove(number)
                state.ended.remove(number)
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ringing = state.withLock { state -> Bool in
                    guard state.version == version, !state.ended.contains(number) else { return true }
                    state.waiters[number] = continuation
                    return false
                }
                if ringing { continuation.resume() }
            }
        } onCancel: {
            resume(number)
        }
        try Task.checkCancellation()
    }

    private func resume(_ number: UInt64) {
        let waiter = state.withLock { state in
            guard let waiter = state.waiters.removeValue(forKey: number) else {
                if state.live.contains(number) { state.ended.insert(number) }
                return nil as CheckedContinuation<Void, Never>?
            }
            return waiter
        }
        waiter?.resume()
    }
}
