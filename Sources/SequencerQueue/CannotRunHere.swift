/// Thrown by a durable job's body that cannot run its job in this process: it lacks a file, a
/// tool or a credential that another worker may have. The job goes back to the queue at once,
/// its attempt not counted, neither failed nor retried; this worker claims no job of its kind
/// for 10 seconds, so that another worker takes it. If none can,
/// the job waits: nothing is lost.
public struct CannotRunHere: Error, Sendable, CustomStringConvertible {
    /// Why, in words, for logs.
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { "cannot run here: \(reason)" }
}
