/// How often a failing job is tried again, and how long to wait between tries.
///
/// ```swift
/// try workflow.add("fetch", retry: .exponential(attempts: 3, initial: .milliseconds(100))) { _ in
///     try await api.fetch()
/// }
/// ```
///
/// A job is not retried after it was cancelled, when its error is a `CancellationError`, or when
/// it timed out.
/// The wait between attempts sleeps on the run's clock and ends early when the run is cancelled.
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts a job gets, counting the first; at least 1.
    public let maxAttempts: Int
    let initial: Duration
    let multiplier: Double
    let maximum: Duration

    /// Try once; never retry.
    public static let none = RetryPolicy(maxAttempts: 1, initial: .zero, multiplier: 1, maximum: .zero)

    /// Retry with a delay that grows by `multiplier` after each failure, up to `max`.
    /// - Parameters:
    ///   - attempts: the most attempts, counting the first.
    ///   - initial: the delay before the second attempt.
    ///   - multiplier: the factor applied to the delay after each further failure.
    ///   - max: the longest delay.
    public static func exponential(
        attempts: Int, initial: Duration = .milliseconds(100), multiplier: Double = 2, max: Duration = .seconds(30)
    ) -> RetryPolicy {
        RetryPolicy(maxAttempts: attempts, initial: initial, multiplier: multiplier, maximum: max)
    }

    /// Retry with the same delay between attempts.
    public static func fixed(attempts: Int, delay: Duration) -> RetryPolicy {
        RetryPolicy(maxAttempts: attempts, initial: delay, multiplier: 1, maximum: delay)
    }

    /// The delay before attempt `attempt` (2 for the first retry): `initial`, multiplied by
    /// `multiplier` for each attempt after that, never more than `max`.
    public func delay(beforeAttempt attempt: Int) -> Duration {
        guard attempt > 1 else { return .zero }
        let limit = Self.seconds(maximum)
        var seconds = Self.seconds(initial)
        var step = 2
        while step < attempt, seconds < limit {
            seconds *= multiplier
            step += 1
        }
        // Compared in seconds first, so an enormous delay never overflows a Duration.
        guard seconds.isFinite, seconds < limit else { return maximum }
        return max(.zero, .seconds(seconds))
    }

    /// Why this policy cannot be used, or nil when it can.
    var problem: String? {
        if maxAttempts < 1 { return "allows \(maxAttempts) attempts; at least 1 is needed" }
        if initial < .zero || maximum < .zero { return "has a negative retry delay" }
        if !multiplier.isFinite || multiplier < 1 { return "has retry multiplier \(multiplier); it must be a finite number of at least 1" }
        return nil
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
