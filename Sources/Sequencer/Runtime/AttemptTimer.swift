import Synchronization

/// The timer of one attempt with a timeout.
struct AttemptTimer {
    let claim: TimeoutClaim
    let task: Task<Void, Never>

    /// The attempt finished: stops the timer. Returns false when the timeout passed first.
    func stop() -> Bool {
        task.cancel()
        return claim.finish()
    }
}

/// Whichever of an attempt and its timer claims this first decides whether the attempt timed out.
final class TimeoutClaim: Sendable {
    private let state = Atomic<Int>(0)  // 0 running, 1 timed out, 2 finished in time

    /// The timeout passed: returns true when the attempt had not finished.
    func timeOut() -> Bool {
        state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged
    }

    /// The attempt ended: returns true when it ended before its timeout.
    func finish() -> Bool {
        state.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged
    }
}
