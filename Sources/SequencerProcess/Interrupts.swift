import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM, handled instead of ending the process: the first one stops the run
/// (its processes get SIGTERM, then SIGKILL after the grace period), a second one kills the
/// processes at once.
public final class Interrupts: Sendable {
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    private let count = Counter()
    // Dispatch sources are thread-safe; they are kept here only so they stay alive, and are
    // set once, in `init`.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    /// Whether a signal arrived.
    public var happened: Bool { count.value.load(ordering: .acquiring) > 0 }

    /// Starts listening. `first` runs on the first signal, `again` on each later one.
    public convenience init(first: @escaping @Sendable () -> Void, again: @escaping @Sendable () -> Void) {
        self.init(first: { _ in first() }, again: again)
    }

    /// Starts listening. `first` runs on the first signal, with its number (SIGINT or SIGTERM),
    /// `again` on each later one.
    public init(first: @escaping @Sendable (Int32) -> Void, again: @escaping @Sendable () -> Void) {
        let count = count
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            // The handler holds its source until `stop()` cancels it (which lets the handler go).
            source.setEventHandler {
                // Signals that arrive before the handler runs come as one event: each is counted.
                for _ in 0..<max(1, source.data) {
                    if count.value.add(1, ordering: .acquiringAndReleasing).newValue == 1 { first(number) } else { again() }
                }
            }
            source.resume()
            return source
        }
    }

    /// Stops listening and restores the default actions.
    public func stop() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
