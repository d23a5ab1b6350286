/// The name of a job, unique within a workflow.
///
/// ```swift
/// let id: JobID = "fetch-config"
/// print(id)   // fetch-config
/// ```
public struct JobID: Hashable, Sendable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The job's name.
    public let rawValue: String

    /// Creates an ID from a string.
    public init(_ string: String) { rawValue = string }

    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }

    public static func < (lhs: JobID, rhs: JobID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A typed reference to a job added to a workflow, used to read its result.
///
/// ```swift
/// let config = try workflow.add("fetch-config") { _ in Config() }
/// try workflow.add("use", needs: [config.id]) { ctx in try await ctx.value(of: config) }
/// ```
public struct JobHandle<Value: Sendable>: Sendable, Hashable {
    /// The job's ID.
    public let id: JobID
    /// The job's position in the workflow it was added to; checked against `id` before use.
    let index: Int32
    /// For a job added to a ``JobQueue``: where its outcome is kept once the queue has forgotten
    /// the job, for as long as a handle to it exists (as a `Task` keeps its value).
    let ticket: JobTicket?

    init(id: JobID, index: Int32, ticket: JobTicket? = nil) {
        self.id = id
        self.index = index
        self.ticket = ticket
    }

    public static func == (lhs: JobHandle, rhs: JobHandle) -> Bool { lhs.id == rhs.id && lhs.index == rhs.index }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(index)
    }
}

/// How urgent a job is. Among jobs that are ready, higher priorities start first,
/// and a job needed by a higher-priority job is raised to that priority.
public enum Priority: UInt8, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case background = 0
    case utility = 1
    case userInitiated = 2
    case userInteractive = 3

    public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .background: "background"
        case .utility: "utility"
        case .userInitiated: "user-initiated"
        case .userInteractive: "user-interactive"
        }
    }

    /// The Swift task priority a job of this priority runs at.
    public var taskPriority: TaskPriority {
        switch self {
        case .background: .background
        case .utility: .utility
        case .userInitiated: .userInitiated
        case .userInteractive: .high
        }
    }
}
