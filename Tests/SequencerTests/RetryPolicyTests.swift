@testable import Sequencer
import Testing

/// `RetryPolicy` on its own, without a run: which failures are retried, the delays with and
/// without jitter, retry-after hints, equality, and validation. `TimeoutRetryTests` covers
/// retries inside a run.
@Suite struct RetryPolicyTests {
    private struct Flaky: Error {}

    /// Like CloudKit's `CKError`: the server may say how long to wait.
    private struct ServerBusy: RetryAfterProviding {
        var retryAfterSeconds: Double?
        var retryAfter: Duration? { retryAfterSeconds.map { .seconds($0) } }
    }

    private struct NetworkError: Error {
        enum Code { case timedOut, connectionLost, notFound }
        let code: Code
    }

    /// Counts how often a predicate is asked.
    private final class Asked: Sendable {
        private let count = Locked(0)
        func ask() { count.withLock { $0 += 1 } }
        var times: Int { count.withLock { $0 } }
    }

    /// A random value as close to 1 as the caller can pass (`random` is in `0..<1`).
    private static let almostOne = 1.0.nextDown

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Whether `duration` is within a nanosecond of `seconds` (jittered delays go through `Double`).
    private static func isClose(_ duration: Duration?, to seconds: Double) -> Bool {
        guard let duration else { return false }
        return abs(Self.seconds(duration) - seconds) <= 1e-9
    }

    // MARK: - Delays without jitter

    @Test(arguments: [0, 0.5, almostOne])
    func exponentialDelaysWithoutJitterGrowUpToTheMaximum(random: Double) {
        let policy = RetryPolicy.exponential(attempts: 6, initial: .seconds(1), multiplier: 2, max: .seconds(5), jitter: 0)
        let delays = (2...6).map { policy.delay(after: Flaky(), beforeAttempt: $0, random: random) }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        #expect(delays == (2...6).map(policy.delay(beforeAttempt:)))

        let tripling = RetryPolicy.exponential(attempts: 5, initial: .milliseconds(10), multiplier: 3, max: .seconds(1), jitter: 0)
        #expect((2...5).map { tripling.delay(after: Flaky(), beforeAttempt: $0, random: random) }
            == [.milliseconds(10), .milliseconds(30), .milliseconds(90), .milliseconds(270)])
    }

    @Test func exponentialDefaultsStartAt100msDoubleAndStopAt30s() {
        let policy = RetryPolicy.exponential(attempts: 20)
        let expected: [Duration] = (0..<9).map { .milliseconds(100 << $0) } + [.seconds(30), .seconds(30)]
        #expect((2...12).map(policy.delay(beforeAttempt:)) == expected)
        #expect(policy.jitter == 0.1)
        #expect(policy.delay(after: Flaky(), beforeAttempt: 2, random: 0) == .milliseconds(100))
        #expect(Self.isClose(policy.delay(after: Flaky(), beforeAttempt: 2, random: Self.almostOne), to: 0.09))
        #expect(Self.isClose(policy.delay(after: Flaky(), beforeAttempt: 12, random: Self.almostOne), to: 27))
    }

    /// Delays are exact for whole-number multipliers and rounded to the nanosecond otherwise, so
    /// they compare equal to the durations a person would write.
    @Test func delaysAreExactOrRoundedToTheNanosecond() {
        let halves = RetryPolicy.exponential(attempts: 9, initial: .milliseconds(100), multiplier: 1.5, max: .seconds(1), jitter: 0)
        #expect((2...9).map(halves.delay(beforeAttempt:))
            == [.milliseconds(100), .milliseconds(150), .milliseconds(225), .microseconds(337_500), .microseconds(506_250),
                .nanoseconds(759_375_000), .seconds(1), .seconds(1)])
        let odd = RetryPolicy.exponential(attempts: 4, initial: .nanoseconds(1) / 3, multiplier: 2, max: .seconds(1), jitter: 0)
        #expect(odd.delay(beforeAttempt: 2) == .nanoseconds(1) / 3, "the initial delay is used as it is")
        #expect(odd.delay(beforeAttempt: 4) == (.nanoseconds(1) / 3) * 4)
    }

    /// Any attempt number answers at once: no loop over the attempts, no overflow.
    @Test func hugeAttemptNumbersAndLimitsNeitherHangNorOverflow() {
        #expect(RetryPolicy.fixed(attempts: .max, delay: .seconds(2)).delay(beforeAttempt: .max) == .seconds(2))
        #expect(RetryPolicy.fixed(attempts: .max, delay: .seconds(2)).delay(after: Flaky(), beforeAttempt: .max, random: 0) == .seconds(2))
        #expect(RetryPolicy.exponential(attempts: .max, multiplier: 1.0000001).delay(beforeAttempt: .max) == .seconds(30))
        #expect(RetryPolicy.exponential(attempts: .max, initial: .zero).delay(beforeAttempt: .max) == .zero)
        let centuries = RetryPolicy.exponential(attempts: 200, initial: .seconds(1), multiplier: 1.5, max: .seconds(Int64(1) << 50), jitter: 0)
        #expect(centuries.delay(beforeAttempt: 60) > .seconds(9_000_000_000), "beyond Int64 nanoseconds")
        #expect(centuries.delay(beforeAttempt: 200) == .seconds(Int64(1) << 50))
    }

    @Test(arguments: [0, 0.3, almostOne])
    func fixedDelaysAreTheSameEveryTimeAndHaveNoJitterByDefault(random: Double) {
        let policy = RetryPolicy.fixed(attempts: 5, delay: .milliseconds(1500))
        #expect(policy.jitter == 0)
        for attempt in 2...5 {
            #expect(policy.delay(after: Flaky(), beforeAttempt: attempt, random: random) == .milliseconds(1500))
            #expect(policy.delay(beforeAttempt: attempt) == .milliseconds(1500))
        }
        let instant = RetryPolicy.fixed(attempts: 3, delay: .zero, jitter: 1)
        #expect(instant.delay(after: Flaky(), beforeAttempt: 2, random: random) == .zero)
    }

    // MARK: - Jitter

    /// Random 0 waits the whole delay; random just under 1 waits `1 - jitter` of it.
    @Test(arguments: [0, 0.1, 0.25, 0.5, 1])
    func jitterShortensADelayByUpToItsFraction(jitter: Double) {
        let exponential = RetryPolicy.exponential(attempts: 8, initial: .milliseconds(300), multiplier: 2, max: .seconds(10), jitter: jitter)
        let fixed = RetryPolicy.fixed(attempts: 8, delay: .seconds(2), jitter: jitter)
        for policy in [exponential, fixed] {
            for attempt in 2...8 {
                let full = policy.delay(beforeAttempt: attempt)
                #expect(policy.delay(after: Flaky(), beforeAttempt: attempt, random: 0) == full)
                let shortest = policy.delay(after: Flaky(), beforeAttempt: attempt, random: Self.almostOne)
                #expect(Self.isClose(shortest, to: Self.seconds(full) * (1 - jitter)))
                let middle = policy.delay(after: Flaky(), beforeAttempt: attempt, random: 0.5)
                #expect(Self.isClose(middle, to: Self.seconds(full) * (1 - jitter / 2)))
            }
        }
    }

    /// Over many random values a jittered delay stays in `(1 - jitter) * full ... full`, never
    /// above the maximum, and shrinks as `random` grows.
    @Test(arguments: [0.1, 0.5, 1])
    func jitteredDelaysStayWithinTheirBoundsForEveryRandomValue(jitter: Double) {
        let maximum = Duration.seconds(7)
        let policy = RetryPolicy.exponential(attempts: 12, initial: .milliseconds(70), multiplier: 2.5, max: maximum, jitter: jitter)
        let randoms = (0..<1000).map { Double($0) / 1000 } + [Self.almostOne]
        for attempt in 2...12 {
            let full = policy.delay(beforeAttempt: attempt)
            let lowest = Self.seconds(full) * (1 - jitter) - 1e-9
            var previous = full
            for random in randoms {
                guard let delay = policy.delay(after: Flaky(), beforeAttempt: attempt, random: random) else {
                    Issue.record("attempt \(attempt) with random \(random) was not retried")
                    return
                }
                #expect(delay <= full && delay <= maximum && delay >= .zero)
                #expect(Self.seconds(delay) >= lowest, "attempt \(attempt), random \(random)")
                #expect(delay <= previous, "a larger random value never waits longer")
                previous = delay
            }
        }
    }

    /// A caller passing a value outside `0..<1` still gets a delay within the bounds.
    @Test(arguments: [-1, -Double.infinity, 1, 2, Double.infinity, Double.nan])
    func randomValuesOutsideTheUnitIntervalAreClamped(random: Double) throws {
        let policy = RetryPolicy.fixed(attempts: 2, delay: .seconds(4), jitter: 0.25)
        let delay = try #require(policy.delay(after: Flaky(), beforeAttempt: 2, random: random))
        let expected = random.isNaN || random < 0 ? 4.0 : 3.0
        #expect(Self.isClose(delay, to: expected))
    }

    // MARK: - Which failures are retried

    @Test func attemptsBeyondTheMaximumAreNotRetried() {
        let policy = RetryPolicy.fixed(attempts: 3, delay: .seconds(1))
        #expect(policy.delay(after: Flaky(), beforeAttempt: 2, random: 0) == .seconds(1))
        #expect(policy.delay(after: Flaky(), beforeAttempt: 3, random: 0) == .seconds(1))
        #expect(policy.delay(after: Flaky(), beforeAttempt: 4, random: 0) == nil)
        #expect(policy.delay(after: Flaky(), beforeAttempt: .max, random: 0) == nil)
        #expect(policy.delay(after: Flaky(), beforeAttempt: 1, random: 0) == nil, "attempt 1 follows no failure")
        #expect(policy.delay(after: Flaky(), beforeAttempt: 0, random: 0) == nil)
        #expect(RetryPolicy.none.delay(after: Flaky(), beforeAttempt: 2, random: 0) == nil)
        #expect(RetryPolicy.none.retrying { _ in true }.delay(after: Flaky(), beforeAttempt: 2, random: 0) == nil)
    }

    @Test func aCancellationErrorIsNeverRetriedEvenWhenThePredicateWouldRetryIt() {
        let asked = Asked()
        let everything = RetryPolicy.fixed(attempts: 5, delay: .seconds(1)).retrying { _ in
            asked.ask()
            return true
        }
        for policy in [RetryPolicy.fixed(attempts: 5, delay: .seconds(1)), .exponential(attempts: 5), everything] {
            #expect(policy.delay(after: CancellationError(), beforeAttempt: 2, random: 0) == nil)
        }
        #expect(asked.times == 0, "the predicate is not asked about a CancellationError")
        #expect(everything.delay(after: Flaky(), beforeAttempt: 2, random: 0) == .seconds(1))
        #expect(asked.times == 1)
    }

    @Test func withoutAPredicateEveryOtherErrorIsRetried() {
        let policy = RetryPolicy.fixed(attempts: 2, delay: .seconds(1))
        let errors: [any Error] = [Flaky(), NetworkError(code: .notFound), ServerBusy(retryAfterSeconds: nil)]
        for error in errors {
            #expect(policy.delay(after: error, beforeAttempt: 2, random: 0) == .seconds(1))
        }
    }

    /// The example from the docs: retry network failures that may pass, fail at once on the rest.
    @Test func aPredicateRetriesOnlyTheErrorsItAccepts() {
        let policy = RetryPolicy.exponential(attempts: 4, initial: .seconds(1), jitter: 0).retrying { error in
            guard let error = error as? NetworkError else { return false }
            return error.code == .timedOut || error.code == .connectionLost
        }
        #expect(policy.delay(after: NetworkError(code: .timedOut), beforeAttempt: 2, random: 0) == .seconds(1))
        #expect(policy.delay(after: NetworkError(code: .connectionLost), beforeAttempt: 3, random: 0) == .seconds(2))
        #expect(policy.delay(after: NetworkError(code: .notFound), beforeAttempt: 2, random: 0) == nil)
        #expect(policy.delay(after: Flaky(), beforeAttempt: 2, random: 0) == nil)
        #expect(policy.delay(after: NetworkError(code: .timedOut), beforeAttempt: 5, random: 0) == nil, "attempts still run out")
        #expect(policy.maxAttempts == 4)
        #expect((2...4).map(policy.delay(beforeAttempt:)) == [.seconds(1), .seconds(2), .seconds(4)])
    }

    @Test func aLaterPredicateReplacesAnEarlierOne() {
        let policy = RetryPolicy.fixed(attempts: 2, delay: .seconds(1))
            .retrying { _ in false }
            .retrying { $0 is Flaky }
        #expect(policy.delay(after: Flaky(), beforeAttempt: 2, random: 0) == .seconds(1))
        #expect(policy.delay(after: NetworkError(code: .timedOut), beforeAttempt: 2, random: 0) == nil)
    }

    // MARK: - Retry-after hints

    @Test func aRetryAfterHintReplacesTheComputedDelayWithoutJitterOrMaximum() {
        let policy = RetryPolicy.exponential(attempts: 4, initial: .seconds(1), max: .seconds(5), jitter: 1)
        for random in [0, 0.5, Self.almostOne] {
            #expect(policy.delay(after: ServerBusy(retryAfterSeconds: 2.5), beforeAttempt: 2, random: random) == .milliseconds(2500))
            #expect(policy.delay(after: ServerBusy(retryAfterSeconds: 60), beforeAttempt: 3, random: random) == .seconds(60), "above max")
            #expect(policy.delay(after: ServerBusy(retryAfterSeconds: 0.001), beforeAttempt: 4, random: random) == .milliseconds(1))
        }
        #expect(policy.delay(after: ServerBusy(retryAfterSeconds: 2.5), beforeAttempt: 5, random: 0) == nil, "attempts still run out")
    }

    @Test func aNegativeRetryAfterHintWaitsNothing() {
        let policy = RetryPolicy.fixed(attempts: 2, delay: .seconds(3))
        #expect(policy.delay(after: ServerBusy(retryAfterSeconds: -4), beforeAttempt: 2, random: 0) == .zero)
        #expect(policy.delay(after: ServerBusy(retryAfterSeconds: 0), beforeAttempt: 2, random: 0) == .zero)
    }

    @Test func aNilRetryAfterHintFallsBackToTheJitteredDelay() {
        let policy = RetryPolicy.exponential(attempts: 3, initial: .seconds(2), jitter: 0.5)
        #expect(policy.delay(after: ServerBusy(retryAfterSeconds: nil), beforeAttempt: 2, random: 0) == .seconds(2))
        #expect(Self.isClose(policy.delay(after: ServerBusy(retryAfterSeconds: nil), beforeAttempt: 3, random: 0.5), to: 3))
    }

    @Test func thePredicateDecidesBeforeARetryAfterHint() {
        let never = RetryPolicy.fixed(attempts: 3, delay: .seconds(1)).retrying { !($0 is ServerBusy) }
        #expect(never.delay(after: ServerBusy(retryAfterSeconds: 1), beforeAttempt: 2, random: 0) == nil)
        let busyOnly = RetryPolicy.fixed(attempts: 3, delay: .seconds(1)).retrying { $0 is ServerBusy }
        #expect(busyOnly.delay(after: ServerBusy(retryAfterSeconds: 9), beforeAttempt: 2, random: 0) == .seconds(9))
    }

    // MARK: - Equality

    @Test func policiesWithTheSameNumbersAndNoPredicateAreEqual() {
        let a = RetryPolicy.exponential(attempts: 3, initial: .seconds(1), multiplier: 3, max: .seconds(9), jitter: 0.2)
        let b = RetryPolicy.exponential(attempts: 3, initial: .seconds(1), multiplier: 3, max: .seconds(9), jitter: 0.2)
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(RetryPolicy.fixed(attempts: 2, delay: .seconds(1)) == .exponential(attempts: 2, initial: .seconds(1), multiplier: 1, max: .seconds(1), jitter: 0))
        #expect(RetryPolicy.none == .none)
        let different = [
            RetryPolicy.exponential(attempts: 4, initial: .seconds(1), multiplier: 3, max: .seconds(9), jitter: 0.2),
            .exponential(attempts: 3, initial: .seconds(2), multiplier: 3, max: .seconds(9), jitter: 0.2),
            .exponential(attempts: 3, initial: .seconds(1), multiplier: 2, max: .seconds(9), jitter: 0.2),
            .exponential(attempts: 3, initial: .seconds(1), multiplier: 3, max: .seconds(8), jitter: 0.2),
            .exponential(attempts: 3, initial: .seconds(1), multiplier: 3, max: .seconds(9), jitter: 0.3),
        ]
        for policy in different { #expect(policy != a) }
        #expect(Set(different + [a, b]).count == 6)
    }

    @Test func aPolicyWithAPredicateEqualsItsCopiesButNotAnotherCallsResult() {
        let base = RetryPolicy.fixed(attempts: 3, delay: .seconds(1))
        let accept: @Sendable (any Error) -> Bool = { _ in true }
        let first = base.retrying(when: accept)
        let copy = first
        #expect(first == copy && first.hashValue == copy.hashValue)
        #expect(first != base.retrying(when: accept), "closures are compared by the call that stored them")
        #expect(first != base && base != first)
        #expect(Set([first, copy, base, base.retrying(when: accept)]).count == 3)
    }

    // MARK: - Validation

    @Test(arguments: [
        (1.5, "has retry jitter 1.5; it must be between 0 and 1"),
        (-0.1, "has retry jitter -0.1; it must be between 0 and 1"),
        (.nan, "has retry jitter nan; it must be between 0 and 1"),
        (.infinity, "has retry jitter inf; it must be between 0 and 1"),
    ] as [(Double, String)])
    func jitterOutsideZeroToOneIsRejected(jitter: Double, message: String) throws {
        #expect(RetryPolicy.exponential(attempts: 3, jitter: jitter).problem == message)
        #expect(RetryPolicy.fixed(attempts: 3, delay: .seconds(1), jitter: jitter).problem == message)
        #expect(RetryPolicy.fixed(attempts: 3, delay: .seconds(1), jitter: jitter).retrying { _ in true }.problem == message)

        var workflow = Workflow()
        let error = #expect(throws: WorkflowError.self) { try workflow.add("a", retry: .exponential(attempts: 3, jitter: jitter)) { _ in } }
        #expect(error?.code == .invalidOption)
        #expect(error?.message == "job 'a' \(message)")
    }

    @Test func validPoliciesHaveNoProblem() {
        let valid = [
            RetryPolicy.none, .exponential(attempts: 1), .exponential(attempts: 3, jitter: 0), .exponential(attempts: 3, jitter: 1),
            .fixed(attempts: 2, delay: .zero), .fixed(attempts: 2, delay: .seconds(1), jitter: 0.5),
            .exponential(attempts: 3).retrying { _ in false },
        ]
        for policy in valid { #expect(policy.problem == nil) }
    }

    @Test func theOtherProblemsAreStillReported() {
        #expect(RetryPolicy.fixed(attempts: 0, delay: .seconds(1)).problem == "allows 0 attempts; at least 1 is needed")
        #expect(RetryPolicy.fixed(attempts: 2, delay: .seconds(-1)).problem == "has a negative retry delay")
        #expect(RetryPolicy.exponential(attempts: 2, multiplier: 0.5).problem
            == "has retry multiplier 0.5; it must be a finite number of at least 1")
    }
}
