import Foundation
import Sequencer

/// A durable queue's time: the wall time its store records (milliseconds since 1970), read from
/// the queue's clock, so that tests can drive leases, retries and polls with a manual clock.
package struct QueueClock: Sendable {
    /// The wall time when the queue was opened.
    private let origin: Int64
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    init(_ clock: some Clock<Duration>) {
        origin = Self.wallNow()
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleeper = { try await clock.sleep(until: start.advanced(by: $0), tolerance: nil) }
    }

    /// The wall time now, in milliseconds since 1970: for what reads a store without a queue
    /// (its page, say).
    package static func wallNow() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Now, in milliseconds since 1970.
    func now() -> Int64 { origin + Self.milliseconds(elapsed()) }

    /// Nanoseconds since the queue was opened: for durations finer than ``now()``'s.
    func nanoseconds() -> Int64 { elapsed().nanoseconds }

    /// Sleeps until `time` (milliseconds since 1970): at once when it has passed, however long
    /// the caller took to get here.
    func sleep(until time: Int64) async throws { try await sleeper(.milliseconds(time - origin)) }

    func sleep(for duration: Duration) async throws { try await sleep(until: now() + Self.milliseconds(duration)) }

    /// A duration in whole milliseconds, rounded up so that a wait is never cut short.
    package static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let whole = attoseconds / 1_000_000_000_000_000
        return seconds * 1000 + whole + (attoseconds % 1_000_000_000_000_000 > 0 ? 1 : 0)
    }
}
