import Sequencer

/// How many bodies run at once, and the most there ever were. A parent waiting for its
/// children calls `leave()` before it waits and `enter()` after, so it does not count meanwhile.
final class ConcurrencyMeter: Sendable {
    private let state = Locked((now: 0, peak: 0))
    func enter() { state.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) } }
    func leave() { state.withLock { $0.now -= 1 } }
    var peak: Int { state.withLock { $0.peak } }
}
