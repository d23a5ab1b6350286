/// The ID of a job in a durable queue: given by ``DurableQueue/enqueue(_:_:key:needs:priority:lane:timeout:retry:runAt:)``,
/// kept in the store, valid across launches and processes. `needs:` takes it.
public struct DurableJobID: StoreRowID, CustomStringConvertible {
    /// The job's number in its store.
    public let rawValue: Int64

    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    public var description: String { "#\(rawValue)" }
}

/// A row's number in a queue store, as a type of its own: coded as the bare number, ordered by it.
public protocol StoreRowID: Hashable, Codable, Sendable, Comparable {
    var rawValue: Int64 { get }
    init(_ rawValue: Int64)
}

extension StoreRowID {
    public init(from decoder: any Decoder) throws { self.init(try decoder.singleValueContainer().decode(Int64.self)) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where a durable job is in its life.
///
/// ```
/// waiting ──(its needs succeeded)──▶ available ──(claimed)──▶ running ──▶ succeeded
///                                       ▲                        │ ├───▶ failed (no attempts left, or poison)
///                                       └──(retry, or its lease  │ └───▶ cancelled
///                                           expired)─────────────┘
/// waiting/available ──(cancel)──▶ cancelled;  a need failed, cancelled or skipped ──▶ skipped
/// ```
public enum DurableJobState: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Some of its needs have not succeeded yet.
    case waiting = 0
    /// Ready to run from its run time on, by any process that knows its kind.
    case available = 1
    /// Claimed by a worker, which holds a lease on it.
    case running = 2
    case succeeded = 3
    /// Its last attempt failed with no attempts left, or it failed for good at once (an input
    /// that does not decode, a body that ended the process too often).
    case failed = 4
    case cancelled = 5
    /// A job it needs did not succeed: it never runs.
    case skipped = 6

    /// Whether it has not ended: a key it has is still live.
    public var isLive: Bool { rawValue <= DurableJobState.running.rawValue }

    /// Waiting, or available: not yet running.
    public var isPending: Bool { self == .waiting || self == .available }

    public var description: String {
        switch self {
        case .waiting: "waiting"
        case .available: "available"
        case .running: "running"
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .skipped: "skipped"
        }
    }
}
