public import Sequencer

/// Records, per job, how often its body was called, with which attempts, and whether it saw
/// cancellation: for checking which jobs ran, and how often.
///
/// ```swift
/// let calls = CallLog()
/// try workflow.add("a") { _ in calls.called("a") }
/// _ = await workflow.start().report()
/// #expect(calls.calls("a") == 1)
/// ```
public final class CallLog: Sendable {
    private struct Entry {
        var calls = 0
        var attempts: [Int] = []
        var sawCancellation = false
    }

    private let entries = Locked<[JobID: Entry]>([:])

    public init() {}

    /// Records a call of `id`'s body, in its attempt `attempt`.
    public func called(_ id: JobID, attempt: Int = 1) {
        entries.withLock { $0[id, default: Entry()].calls += 1; $0[id, default: Entry()].attempts.append(attempt) }
    }

    /// Records that `id`'s body saw cancellation.
    public func sawCancellation(_ id: JobID) {
        entries.withLock { $0[id, default: Entry()].sawCancellation = true }
    }

    /// How often `id`'s body was called.
    public func calls(_ id: JobID) -> Int { entries.withLock { $0[id]?.calls ?? 0 } }
    /// The attempts `id`'s body was called in, in order.
    public func attempts(_ id: JobID) -> [Int] { entries.withLock { $0[id]?.attempts ?? [] } }
    /// Whether `id`'s body saw cancellation.
    public func sawCancellation(of id: JobID) -> Bool { entries.withLock { $0[id]?.sawCancellation ?? false } }
}
