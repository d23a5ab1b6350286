/// How often a failing job is tried again, and how long to wait between tries.
///
/// ```swift
/// try workflow.add("fetch", retry: .exponential(attempts: 3, initial: .milliseconds(100))) { _ in
///     try await api.fetch()
/// }
/// ```
///
/// A policy decides three things about a failed attempt:
/// - whether there is another attempt: at most ``maxAttempts`` in all, counting the first;
/// - whether the error is worth retrying: by default every error except `CancellationError`;
///   ``retrying(when:)`` narrows that down;
/// - how long to wait first: the computed backoff, shortened by a random jitter so that many
///   clients do not retry in step, unless the error says how long to wait by adopting
///   ``RetryAfterProviding``.
///
/// A job is not retried after it was cancelled, when its error is a `CancellationError`, or when
/// it timed out.
/// The wait between attempts sleeps on the run's clock and ends early when the job or the run is
/// cancelled; a retry whose wait would end after the run's deadline is not attempted.
///
/// Two policies are equal when their numbers are equal and they share the same predicate: a
/// policy copied is equal to itself, but two separate calls to ``retrying(when:)`` make unequal
/// policies, since closures cannot be compared.
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts a job gets, counting the first; at least 1.
    public let maxAttempts: Int
    package let initial: Duration
    package let multiplier: Double
    package let maximum: Duration
    /// The fraction, in 0...1, by which a computed delay may be shortened at random.
    package let jitter: Double
    /// Which errors are retried; nil retries every error but `CancellationError`.
    private let predicate: Predicate?

    /// A predicate in a box, so that policies can compare predicates by identity.
    private final class Predicate: Sendable {
        let shouldRetry: @Sendable (any Error) -> Bool

        init(_ shouldRetry: @escaping @Sendable (any Error) -> Bool) { self.shouldRetry = shouldRetry }
    }

    private init(
        maxAttempts: Int, initial: Duration, multiplier: Double, maximum: Duration, jitter: Double,
        predicate: Predicate? = nil
    ) {
        self.maxAttempts = maxAttempts
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.jitter = jitter
        self.predicate = predicate
    }

    /// Try once; never retry.
    public static let none = RetryPolicy(maxAttempts: 1, initial: .zero, multiplier: 1, maximum: .zero, jitter: 0)

    /// Retry with a delay that grows by `multiplier` after each failure, up to `max`, each delay
    /// shortened at random by up to `jitter` of itself.
    ///
    /// ```swift
    /// // Waits about 100 ms, 200 ms, 400 ms, 800 ms: each between 90% and 100% of that.
    /// try workflow.add("sync", retry: .exponential(attempts: 5)) { _ in try await api.sync() }
    /// ```
    ///
    /// - Parameters:
    ///   - attempts: the most attempts, counting the first; at least 1.
    ///   - initial: the delay before the second attempt.
    ///   - multiplier: the factor applied to the delay after each further failure; a finite
    ///     number of at least 1.
    ///   - max: the longest delay.
    ///   - jitter: the fraction, between 0 and 1, of each delay that may be cut at random: each
    ///     delay is multiplied by a random factor in `(1 - jitter)...1`, so it is never longer
    ///     than the delay without jitter, nor than `max`. 0 turns jitter off.
    /// - Returns: the policy. Impossible values (no attempts, negative delays, a multiplier
    ///   below 1, jitter outside 0...1) make ``Workflow/add(_:needs:lane:priority:timeout:retry:coalesce:_:)``
    ///   (and `addChild`, and a queue's `add`) throw ``WorkflowError/Code/invalidOption``.
    public static func exponential(
        attempts: Int, initial: Duration = .milliseconds(100), multiplier: Double = 2, max: Duration = .seconds(30),
        jitter: Double = 0.1
    ) -> RetryPolicy {
        RetryPolicy(maxAttempts: attempts, initial: initial, multiplier: multiplier, maximum: max, jitter: jitter)
    }

    /// Retry with the same delay between attempts.
    ///
    /// ```swift
    /// try workflow.add("ping", retry: .fixed(attempts: 3, delay: .seconds(1))) { _ in try await host.ping() }
    /// ```
    ///
    /// - Parameters:
    ///   - attempts: the most attempts, counting the first; at least 1.
    ///   - delay: the wait before each retry.
    ///   - jitter: the fraction, between 0 and 1, of the delay that may be cut at random; 0 (the
    ///     default) waits exactly `delay` every time.
    /// - Returns: the policy.
    public static func fixed(attempts: Int, delay: Duration, jitter: Double = 0) -> RetryPolicy {
        RetryPolicy(maxAttempts: attempts, initial: delay, multiplier: 1, maximum: delay, jitter: jitter)
    }

    /// This policy, retrying only the errors for which `shouldRetry` returns true.
    ///
    /// A `CancellationError` is never retried, whatever the predicate says; the predicate is not
    /// asked about it. Calling this again replaces the predicate.
    ///
    /// ```swift
    /// // Retry dropped connections; fail at once on anything else, such as a 404.
    /// let network = RetryPolicy.exponential(attempts: 4).retrying { error in
    ///     guard let error = error as? URLError else { return false }
    ///     return [.timedOut, .networkConnectionLost, .notConnectedToInternet].contains(error.code)
    /// }
    /// try workflow.add("download", retry: network) { _ in try await session.data(from: url) }
    /// ```
    ///
    /// Each call makes a policy that is unequal to every other, even with the same closure: make
    /// it once and reuse the value when jobs should share their options.
    ///
    /// - Parameter shouldRetry: whether a failed attempt's error is worth another attempt. It is
    ///   called from the run's tasks, so it must be quick and must not block.
    /// - Returns: the policy with the same attempts and delays, and this predicate.
    public func retrying(when shouldRetry: @escaping @Sendable (any Error) -> Bool) -> RetryPolicy {
        RetryPolicy(
            maxAttempts: maxAttempts, initial: initial, multiplier: multiplier, maximum: maximum, jitter: jitter,
            predicate: Predicate(shouldRetry))
    }

    /// The delay before attempt `attempt` (2 for the first retry), without jitter: `initial`,
    /// multiplied by `multiplier` for each attempt after that, never more than `max`.
    ///
    /// ```swift
    /// let policy = RetryPolicy.exponential(attempts: 6, initial: .seconds(1), max: .seconds(5))
    /// (2...6).map(policy.delay(beforeAttempt:))   // 1 s, 2 s, 4 s, 5 s, 5 s
    /// ```
    ///
    /// - Parameter attempt: the attempt about to start; 1 and below wait nothing.
    /// - Returns: the delay; ``delay(after:beforeAttempt:random:)`` never computes a longer one
    ///   (only an error's retry-after hint can be longer).
    ///   With a whole-number multiplier it is exact (`initial` times a whole number); otherwise
    ///   it is rounded to the nanosecond.
    /// - Complexity: O(log attempt).
    public func delay(beforeAttempt attempt: Int) -> Duration {
        guard attempt > 1, initial > .zero, maximum > .zero else { return .zero }
        let factor = Self.power(multiplier, attempt - 2)
        let seconds = Self.seconds(initial) * factor
        // Compared in seconds first, so an enormous delay never overflows a Duration.
        guard seconds.isFinite, seconds < Self.seconds(maximum) else { return maximum }
        let delay: Duration
        if factor < 0x1p53, factor == factor.rounded(.down) {
            delay = initial * Int64(factor)  // exact: 100 ms doubled four times is 1.6 s, not 1.6000000000000001 s
        } else if seconds < 9e9 {
            delay = .nanoseconds(Int64((seconds * 1e9).rounded()))
        } else {
            delay = .seconds(seconds)  // beyond what Int64 nanoseconds hold (292 years)
        }
        return min(max(.zero, delay), maximum)
    }

    /// Whether to try a job again after `error`, and how long to wait first.
    ///
    /// The runtime calls this after each failed attempt. It returns nil, and the job fails with
    /// `error`, when `attempt` is beyond ``maxAttempts``, when `error` is a `CancellationError`,
    /// or when the predicate given to ``retrying(when:)`` returns false. Otherwise:
    /// - when `error` adopts ``RetryAfterProviding`` and its ``RetryAfterProviding/retryAfter``
    ///   is not nil, that delay, as it is: no jitter, not capped by `max`; a negative one is zero;
    /// - else ``delay(beforeAttempt:)`` multiplied by `1 - jitter * random`.
    ///
    /// ```swift
    /// let policy = RetryPolicy.exponential(attempts: 3, initial: .seconds(1), jitter: 0.5)
    /// policy.delay(after: error, beforeAttempt: 2, random: 0)     // 1 s
    /// policy.delay(after: error, beforeAttempt: 2, random: 0.5)   // 0.75 s
    /// policy.delay(after: error, beforeAttempt: 4, random: 0)     // nil: 3 attempts at most
    /// ```
    ///
    /// - Parameters:
    ///   - error: what the failed attempt threw.
    ///   - attempt: the attempt that would come next: 2 for the first retry. Below 2 returns nil.
    ///   - random: a uniformly distributed value in `0..<1`, such as `Double.random(in: 0..<1)`;
    ///     passed in so that tests are deterministic. Values outside `0...1` are clamped, and
    ///     NaN counts as 0, so the delay is never longer than ``delay(beforeAttempt:)``.
    /// - Returns: the delay before attempt `attempt`, or nil when the job must not be retried.
    public func delay(after error: any Error, beforeAttempt attempt: Int, random: Double) -> Duration? {
        guard attempt >= 2, attempt <= maxAttempts, !(error is CancellationError) else { return nil }
        if let predicate, !predicate.shouldRetry(error) { return nil }
        if let hinted = error as? any RetryAfterProviding, let retryAfter = hinted.retryAfter {
            return max(.zero, retryAfter)
        }
        let full = delay(beforeAttempt: attempt)
        let cut = Self.unitInterval(jitter) * Self.unitInterval(random)
        guard cut > 0 else { return full }
        // Subtracting a non-negative cut keeps the delay at or under `full`, even after rounding.
        return full - min(full, full * cut)
    }

    /// Why this policy cannot be used, or nil when it can.
    var problem: String? {
        if maxAttempts < 1 { return "allows \(maxAttempts) attempts; at least 1 is needed" }
        if initial < .zero || maximum < .zero { return "has a negative retry delay" }
        if !multiplier.isFinite || multiplier < 1 { return "has retry multiplier \(multiplier); it must be a finite number of at least 1" }
        if !(0...1).contains(jitter) { return "has retry jitter \(jitter); it must be between 0 and 1" }
        return nil
    }

    /// Equal when the numbers are equal and the predicate is the same one (or both have none).
    public static func == (lhs: RetryPolicy, rhs: RetryPolicy) -> Bool {
        lhs.identity == rhs.identity
    }

    /// What ``==(_:_:)`` compares, in a value that holds no reference: kept and compared for
    /// every job added, it costs no retain.
    struct Identity: Hashable {
        var maxAttempts: Int
        var initial: Duration
        var multiplier: Double
        var maximum: Duration
        var jitter: Double
        var predicate: ObjectIdentifier?
    }

    var identity: Identity {
        Identity(
            maxAttempts: maxAttempts, initial: initial, multiplier: multiplier, maximum: maximum, jitter: jitter,
            predicate: predicate.map { ObjectIdentifier($0) })
    }

    /// Hashes the numbers and the predicate's identity, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `base` to the power `exponent` (at least 0), by repeated squaring: infinity when it overflows.
    private static func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        var square = base
        var exponent = exponent
        while exponent > 0 {
            if exponent & 1 == 1 { result *= square }
            exponent >>= 1
            if exponent > 0 { square *= square }
        }
        return result
    }

    /// `value` clamped to 0...1; NaN is 0.
    private static func unitInterval(_ value: Double) -> Double {
        value.isNaN ? 0 : Swift.min(Swift.max(value, 0), 1)
    }
}

/// An error that says how long to wait before trying again, such as a server's `Retry-After`
/// header or CloudKit's `CKError.retryAfterSeconds`.
///
/// When a failed attempt throws an error that adopts this protocol and its ``retryAfter`` is not
/// nil, a ``RetryPolicy`` waits that long before the next attempt instead of its own backoff:
/// the hint is used as it is, without jitter and even when it is longer than the policy's `max`
/// (a negative hint waits nothing). The policy still decides *whether* to retry: the attempts
/// must not have run out, and the predicate given to ``RetryPolicy/retrying(when:)`` must agree.
///
/// ```swift
/// struct ServerBusy: RetryAfterProviding {
///     var retryAfterSeconds: Double?           // from the response, when the server sent it
///     var retryAfter: Duration? { retryAfterSeconds.map { .seconds($0) } }
/// }
///
/// // CloudKit's errors already carry the hint:
/// extension CKError: @retroactive RetryAfterProviding {
///     public var retryAfter: Duration? { retryAfterSeconds.map { .seconds($0) } }
/// }
/// ```
public protocol RetryAfterProviding: Error {
    /// How long to wait before the next attempt; nil to let the policy compute the delay.
    var retryAfter: Duration? { get }
}
