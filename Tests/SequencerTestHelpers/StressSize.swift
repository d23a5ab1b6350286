import Foundation

/// How big a stress test runs, and how long without progress counts as a hang, from
/// `SEQUENCER_STRESS_ROUNDS`.
///
/// - Set (CI's stress steps): the test runs in a process of its own, `rounds` rounds of its long
///   form, and a minute without progress is a hang.
/// - Unset (the README's `swift test`): a short form runs with every other suite. On a 2-core
///   machine those can hold Swift's pool for minutes, so a stalled short form is starved rather
///   than hung: only ten minutes without progress count. A stall of two minutes ended the test
///   process in CI run 50, and its orphaned children then held `swift test`'s output open.
public struct StressSize: Sendable {
    /// The rounds asked for, or nil for the short form.
    public let rounds: Int?

    /// Reads `SEQUENCER_STRESS_ROUNDS`.
    public static var current: StressSize {
        StressSize(rounds: ProcessInfo.processInfo.environment["SEQUENCER_STRESS_ROUNDS"].flatMap { Int($0) })
    }

    /// Whether the test runs alone, in CI's step of its own.
    public var isLongForm: Bool { rounds != nil }

    /// How long without progress is a hang.
    public var stall: Duration { isLongForm ? .seconds(60) : .seconds(600) }
}
