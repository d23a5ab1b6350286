/// The body of a job, with its result type erased.
typealias JobBody = @Sendable (JobContext) async throws -> any Sendable

/// Options most jobs leave at their defaults, stored only for jobs that set them.
struct JobOptions: Sendable {
    var timeout: Duration?
    var retry: RetryPolicy = .none
}

/// A set of jobs and the needs between them: a graph of asynchronous work.
///
/// `Workflow` is a value: add jobs and lanes, then ``start(_:)`` it as many times as you like.
///
/// ```swift
/// var workflow = Workflow()
/// workflow.lane("network", width: 2)
/// let splash = try workflow.add("splash") { _ in "shown" }
/// try workflow.add("fetch-config", needs: [splash.id], lane: "network") { _ in try await api.config() }
/// let report = try await workflow.start().report()
/// ```
public struct Workflow: Sendable {
    // Jobs are stored as parallel arrays indexed by the order they were added:
    // one small entry per job, no per-job object.
    var ids: [JobID] = []
    var bodies: [JobBody] = []
    var priorities: [Priority] = []
    var laneOfJob: [Int32] = []
    /// `needStart[i] ..< needStart[i + 1]` are job i's needs in `needIDs`.
    var needStart: [Int32] = [0]
    var needIDs: [JobID] = []
    var options: [Int32: JobOptions] = [:]
    var hasValue: [Bool] = []
    var index: [JobID: Int32] = [:]
    var lanes: [LaneDefinition] = []
    var laneIndex: [String: Int32] = [:]

    struct LaneDefinition: Sendable {
        var name: String
        var width: Int?
        var ordered = true
    }

    /// Creates an empty workflow.
    public init() {}

    /// The number of jobs.
    public var count: Int { ids.count }

    /// The IDs of the jobs, in the order they were added.
    public var jobIDs: [JobID] { ids }

    /// Declares a lane: a named limit on how many of its jobs run at once.
    ///
    /// A lane of width 1 is a true serial queue. In an ordered lane (the default) jobs start in
    /// the order they were added, and a job still waiting for its needs holds its place: no later
    /// job of the lane overtakes it. An unordered lane only limits concurrency.
    ///
    /// ```swift
    /// workflow.lane("disk", width: 1)
    /// workflow.lane("network", width: 4, ordered: false)
    /// ```
    /// Declaring a lane again replaces its width and ordering.
    public mutating func lane(_ id: String, width: Int, ordered: Bool = true) {
        let lane = laneSlot(id)
        lanes[Int(lane)].width = width
        lanes[Int(lane)].ordered = ordered
    }

    /// Adds a job.
    ///
    /// ```swift
    /// let config = try workflow.add("fetch-config", needs: ["splash"], lane: "network",
    ///                               retry: .exponential(attempts: 3)) { _ in try await api.config() }
    /// ```
    /// - Parameters:
    ///   - id: the job's ID, unique in the workflow.
    ///   - needs: the jobs that must succeed before this one starts; they may be added later.
    ///   - lane: the lane whose width limits this job, declared with ``lane(_:width:ordered:)``.
    ///   - priority: the job's priority; raised when a job of higher priority needs it.
    ///   - timeout: how long one attempt may run before it is cancelled and the job times out.
    ///   - retry: how failures are retried.
    ///   - body: the work; it receives a ``JobContext`` and returns the job's result.
    /// - Returns: a handle to read the job's result with ``JobContext/value(of:)``.
    /// - Throws: ``WorkflowError`` with code `.duplicateJob` when the ID is taken.
    @discardableResult
    public mutating func add<T: Sendable>(
        _ id: JobID,
        needs: [JobID] = [],
        lane: String? = nil,
        priority: Priority = .utility,
        timeout: Duration? = nil,
        retry: RetryPolicy = .none,
        _ body: @escaping @Sendable (JobContext) async throws -> T
    ) throws -> JobHandle<T> {
        let job = Int32(ids.count)
        if let existing = index.updateValue(job, forKey: id) {
            index[id] = existing
            throw WorkflowError(code: .duplicateJob, message: "duplicate job '\(id)'", jobs: [id])
        }
        ids.append(id)
        bodies.append { context in try await body(context) }
        priorities.append(priority)
        laneOfJob.append(lane.map { laneSlot($0) } ?? -1)
        needIDs.append(contentsOf: needs)
        needStart.append(Int32(needIDs.count))
        hasValue.append(T.self != Void.self)
        if timeout != nil || retry != .none {
            options[job] = JobOptions(timeout: timeout, retry: retry)
        }
        return JobHandle(id: id, index: job)
    }

    private mutating func laneSlot(_ name: String) -> Int32 {
        if let lane = laneIndex[name] { return lane }
        let lane = Int32(lanes.count)
        lanes.append(LaneDefinition(name: name, width: nil))
        laneIndex[name] = lane
        return lane
    }

    /// Checks that every need names a job, every lane was declared, and no jobs need each
    /// other in a circle, without running anything.
    ///
    /// - Throws: ``WorkflowError``; a cycle's message names every job on it in order,
    ///   `dependency cycle: a -> b -> c -> a`.
    /// - Complexity: O(jobs + needs), iterative: a chain of a million jobs validates.
    public func validate() throws {
        _ = try Plan(self)
    }

    /// The needs of job `job`, as given to `add`.
    func needs(of job: Int) -> ArraySlice<JobID> {
        needIDs[Int(needStart[job])..<Int(needStart[job + 1])]
    }
}
