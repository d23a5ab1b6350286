/// Why a durable queue or its store refused something.
public struct QueueError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The store's file is damaged, or is not a queue.
        case unreadable
        /// The store was written by a newer Sequencer.
        case newerVersion
        /// A database operation failed (the disk is full, the server went away, ...).
        case database
        /// A need names a job the store does not have (never enqueued, or pruned).
        case unknownNeed
        /// A job uses a lane that no process declared with ``DurableQueue/lane(_:width:)``.
        case unknownLane
        /// An option is out of range (a width below 1, an empty key).
        case invalidOption
        /// There is no such job (``DurableQueue/result(of:as:)``).
        case noSuchJob
        /// A stored input or output does not decode as the type asked for.
        case undecodable
    }

    public let code: Code
    /// Where: the store's path or URL.
    public let location: String
    public let message: String

    public init(code: Code, location: String, message: String) {
        self.code = code
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}
