import Sequencer

/// A one-way gate for tests: tasks wait at it until it opens, then pass forever after.
///
/// ```swift
/// let gate = Gate()
/// try workflow.add("slow") { _ in await gate.wait() }
/// // ... check the run while "slow" is running ...
/// gate.open()
/// ```
public final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var arrivals = 0
        var arrivalWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    public init() {}

    /// Waits until the gate opens; returns at once if it is open.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let (pass, watchers) = state.withLock { state in
                state.arrivals += 1
                let arrivals = state.arrivals
                let watchers = state.arrivalWatchers.filter { $0.count <= arrivals }.map(\.continuation)
                state.arrivalWatchers.removeAll { $0.count <= arrivals }
                if !state.isOpen { state.waiters.append(continuation) }
                return (state.isOpen, watchers)
            }
            for watcher in watchers { watcher.resume() }
            if pass { continuation.resume() }
        }
    }

    /// Opens the gate, letting every waiter through.
    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether the gate was opened: for a bounded wait (`eventually { gate.isOpen }`), which a
    /// test's time limit can end, where ``wait()`` cannot be cancelled.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// How many times ``wait()`` was called.
    public var arrivals: Int { state.withLock { $0.arrivals } }

    /// Waits until ``wait()`` has been called at least `count` times.
    public func arrivals(atLeast count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.arrivals >= count { return true }
                state.arrivalWatchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
