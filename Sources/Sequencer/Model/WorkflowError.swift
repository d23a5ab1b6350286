/// An error in the shape of a workflow: a duplicate job, a need that names no job,
/// a cycle, or a lane problem. Thrown by ``Workflow/add(_:needs:lane:priority:timeout:retry:_:)``,
/// ``Workflow/validate()`` and ``Workflow/start(_:)``, before any job runs.
///
/// ```swift
/// do { try workflow.validate() } catch let error as WorkflowError where error.code == .cycle {
///     print(error)   // dependency cycle: a -> b -> c -> a
/// }
/// ```
public struct WorkflowError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// Two jobs were given the same ID.
        public static let duplicateJob = Code(name: "duplicateJob")
        /// A job needs an ID that no job has.
        public static let unknownNeed = Code(name: "unknownNeed")
        /// Jobs need each other in a circle.
        public static let cycle = Code(name: "cycle")
        /// A job names a lane that was never declared with ``Workflow/lane(_:width:ordered:)``.
        public static let unknownLane = Code(name: "unknownLane")
        /// A lane was declared with a width below 1.
        public static let invalidLaneWidth = Code(name: "invalidLaneWidth")
        /// An ordered lane would wait forever: a job needs, directly or through others,
        /// a job added to the same lane after it.
        public static let laneOrderDeadlock = Code(name: "laneOrderDeadlock")
        /// An option has a value it cannot have (a negative timeout, zero attempts).
        public static let invalidOption = Code(name: "invalidOption")
        /// A job read the value of a job that is not one of its needs.
        public static let notANeed = Code(name: "notANeed")
    }

    /// What kind of problem this is.
    public let code: Code
    /// A sentence naming the jobs involved.
    public let message: String
    /// The jobs involved, in order; for a cycle, every job on it, starting and ending with the same job.
    public let jobs: [JobID]

    public init(code: Code, message: String, jobs: [JobID] = []) {
        self.code = code
        self.message = message
        self.jobs = jobs
    }

    public var description: String { message }
}
