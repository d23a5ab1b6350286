/// The body of a job, with its result type erased.
///
/// An existential of a generic struct rather than a wrapping closure: the user's closure (two
/// words) fits the existential's inline buffer, so adding a job allocates nothing for its body.
protocol JobBody: Sendable {
    func run(_ context: JobContext) async throws -> any Sendable
    /// A body that returns the restored result at once, or nil when the result cannot be
    /// restored as this body's type (it is not `Decodable`, or decoding fails).
    func restoring(_ result: RestoredResult) -> (any JobBody)?
}

struct TypedJobBody<Value: Sendable>: JobBody {
    let body: @Sendable (JobContext) async throws -> Value

    func run(_ context: JobContext) async throws -> any Sendable { try await body(context) }

    func restoring(_ result: RestoredResult) -> (any JobBody)? {
        if case .void = result, Value.self == Void.self { return RestoredJobBody(value: ()) }
        guard case .encoded(let encoded) = result, let type = Value.self as? any Decodable.Type else { return nil }
        guard let value = try? encoded.decode(type) as? Value else { return nil }
        return RestoredJobBody(value: value)
    }
}

/// What the scheduler keeps in place of an added job's body once no worker will run it
/// (``SchedulerState/releaseBody(of:)``): nothing the body captured, so that a queue's finished
/// jobs do not keep their owner (which the bodies often capture) alive in a cycle. Never run.
struct EndedJobBody: JobBody {
    func run(_ context: JobContext) async throws -> any Sendable { throw CancellationError() }
    func restoring(_ result: RestoredResult) -> (any JobBody)? { nil }
}

struct VoidJobBody: JobBody {
    let body: @Sendable (JobContext) async throws -> Void

    func run(_ context: JobContext) async throws -> any Sendable { try await body(context) }

    func restoring(_ result: RestoredResult) -> (any JobBody)? {
        guard case .void = result else { return nil }
        return RestoredJobBody(value: ())
    }
}

/// The body of a job whose result was restored from an earlier attempt at its run.
struct RestoredJobBody: JobBody {
    let value: any Sendable

    func run(_ context: JobContext) async throws -> any Sendable { value }

    func restoring(_ result: RestoredResult) -> (any JobBody)? { nil }
}

/// Options most jobs leave at their defaults, stored only for jobs that set them.
struct JobOptions: Sendable, Equatable {
    var timeout: Duration?
    var retry: RetryPolicy = .none
    /// Jobs with the same key run their body once per run and share its result.
    var coalesce: String?
    /// The result type of a coalesced job: every job sharing a key must return the same type.
    var valueType: ObjectIdentifier?

    init(timeout: Duration? = nil, retry: RetryPolicy = .none, coalesce: String? = nil, valueType: ObjectIdentifier? = nil) {
        self.timeout = timeout
        self.retry = retry
        self.coalesce = coalesce
        self.valueType = coalesce == nil ? nil : valueType
    }

    /// The options, or nil when they are all defaults (most jobs): checked without copying
    /// the retry policy.
    static func unlessDefault(timeout: Duration?, retry: RetryPolicy, coalesce: String?, valueType: ObjectIdentifier) -> JobOptions? {
        if timeout == nil, coalesce == nil, retry.maxAttempts == 1, retry.problem == nil { return nil }
        return JobOptions(timeout: timeout, retry: retry, coalesce: coalesce, valueType: valueType)
    }

    /// Why these options cannot be used by the job `id`, or nil when they can.
    func problem(job id: JobID) -> String? {
        if let timeout, timeout <= .zero { return "job '\(id)' has timeout \(timeout); a timeout must be positive" }
        if let problem = retry.problem { return "job '\(id)' \(problem)" }
        return keyProblem(job: id)
    }

    /// Why the key cannot be used by the job `id`: the one check of ``problem(job:)`` that
    /// ``entry`` leaves out.
    func keyProblem(job id: JobID) -> String? {
        coalesce?.isEmpty == true ? "job '\(id)' has an empty coalescing key" : nil
    }

    /// The timeout in whole nanoseconds, at least one, as the run's timers count it.
    var timeoutNanoseconds: Int64? { timeout.map { max(1, $0.nanoseconds) } }

    /// What a workflow's entry for these options holds (a key is kept apart), without a
    /// reference: nil when the job needs no entry (no timeout, no retry).
    var entry: Entry? {
        timeout != nil || retry.maxAttempts != 1 ? Entry(timeout: timeout, retry: retry.identity) : nil
    }

    struct Entry: Equatable {
        var timeout: Duration?
        var retry: RetryPolicy.Identity
    }
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
    // Jobs are stored as parallel arrays indexed by the order they were added: no object per
    // job. Options that most jobs leave alone (priority, lane, a typed result) use arrays that
    // stay empty until a job sets them.
    var ids: [JobID] = []
    var bodies: [any JobBody] = []
    /// `needStart[i] ..< needStart[i + 1]` are job i's needs in `needRefs`: a job's position,
    /// or `-(k + 1)` for the name `pendingNeeds[k]`, not looked up yet.
    var needStart: [Int32] = [0]
    var needRefs: [Int32] = []
    /// Names are indexed and looked up in batches (see `Workflow+Names.swift`).
    var names = NameBatches()
    var explicitPriorities: [Priority] = []
    var explicitLanes: [Int32] = []
    var valueFlags: [Bool] = []
    /// Each job's entry in `optionSets`, or -1; empty while no job sets an option. Jobs that
    /// set the same options share one entry.
    var optionRefs: [Int32] = []
    var optionSets: [JobOptions] = []
    /// The last entry of `optionSets`, checked when it was made: a job added with the same
    /// options (most jobs that set any) shares it, and is not checked again.
    private var lastEntry: JobOptions.Entry?
    /// The jobs' coalescing keys, by number, kept apart from their options so that jobs with keys
    /// of their own still share one options entry.
    var keys = InternedKeys()
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

    /// Makes room for `count` jobs, so adding them does not grow storage step by step.
    public mutating func reserveCapacity(_ count: Int) {
        ids.reserveCapacity(count)
        bodies.reserveCapacity(count)
        needStart.reserveCapacity(count + 1)
        names.index.reserveCapacity(count)
    }

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
    ///   - coalesce: a key shared by jobs that do the same work: in a run, the body of only the
    ///     first of them to start runs, and every job with the key gets its result or error.
    ///     Jobs sharing a key must return the same type. See <doc:Coalescing>.
    ///   - body: the work; it receives a ``JobContext`` and returns the job's result.
    /// - Returns: a handle to read the job's result with ``JobContext/value(of:)``.
    /// - Throws: ``WorkflowError`` `.invalidOption` for options that no job can have (a
    ///   timeout that is not positive, a retry policy that cannot be followed, an empty
    ///   coalescing key); the job is not added. What depends on other jobs (a duplicate ID, an
    ///   unknown need, a cycle, a coalescing key shared by jobs of different types) is reported
    ///   by ``validate()`` and ``start(_:)``, before anything runs, since needs may name jobs
    ///   added later.
    @discardableResult
    public mutating func add<T: Sendable>(
        _ id: JobID,
        needs: [JobID] = [],
        lane: String? = nil,
        priority: Priority = .utility,
        timeout: Duration? = nil,
        retry: RetryPolicy = .none,
        coalesce: String? = nil,
        _ body: @escaping @Sendable (JobContext) async throws -> T
    ) throws -> JobHandle<T> {
        JobHandle(id: id, index: try append(id, JobRequest(needs: needs, lane: lane, priority: priority, timeout: timeout, retry: retry, coalesce: coalesce, body)))
    }

    /// Adds a job that returns nothing.
    ///
    /// The same as the generic ``add(_:needs:lane:priority:timeout:retry:coalesce:_:)``; this overload
    /// takes the closure as it is, where the generic one makes Swift wrap it in a thunk, one
    /// allocation for every job.
    @discardableResult
    public mutating func add(
        _ id: JobID,
        needs: [JobID] = [],
        lane: String? = nil,
        priority: Priority = .utility,
        timeout: Duration? = nil,
        retry: RetryPolicy = .none,
        coalesce: String? = nil,
        _ body: @escaping @Sendable (JobContext) async throws -> Void
    ) throws -> JobHandle<Void> {
        JobHandle(id: id, index: try append(id, JobRequest(needs: needs, lane: lane, priority: priority, timeout: timeout, retry: retry, coalesce: coalesce, body)))
    }

    private mutating func append(_ id: JobID, _ request: JobRequest) throws(WorkflowError) -> Int32 {
        // As `addChild` and a queue's `add` check them: what one job's options alone make
        // impossible. What depends on other jobs (needs, IDs, a key's type) is checked by
        // `validate()` and `start(_:)`, once every job is in.
        let entry = request.options?.entry
        let shared = entry != nil && entry == lastEntry
        if let problem = shared ? request.options?.keyProblem(job: id) : request.options?.problem(job: id) {
            throw WorkflowError(code: .invalidOption, message: problem, jobs: [id])
        }
        let job = Int32(ids.count)
        ids.append(id)
        bodies.append(request.body)
        for need in request.needs {
            needRefs.append(names.refer(to: need, edge: Int32(needRefs.count)))
        }
        needStart.append(Int32(needRefs.count))
        if names.isFull(ids: ids) { names.flush(ids: ids, needRefs: &needRefs) }
        Self.set(&explicitPriorities, job, request.priority, default: .utility)
        Self.set(&explicitLanes, job, request.lane.map { laneSlot($0) } ?? -1, default: -1)
        Self.set(&valueFlags, job, request.hasValue, default: false)
        var ref: Int32 = -1
        keys.add(request.options?.coalesce, job: job, type: request.options?.valueType)
        // A job whose only option is its key has no entry: its key is in `keys` (so that jobs
        // with keys of their own share an entry), and its worker reads no options (no timer to
        // start, no policy to follow). Entries are compared as `Entry`s, which hold no
        // reference: a copy of the options would retain what they hold, for every job.
        if let entry {
            if !shared, let options = request.options {
                optionSets.append(JobOptions(timeout: options.timeout, retry: options.retry))
                lastEntry = entry
            }
            ref = Int32(optionSets.count - 1)
        }
        Self.set(&optionRefs, job, ref, default: -1)
        return job
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

    /// Stores `value` for `job` in an array that stays empty while every job has the default.
    private static func set<Value: Equatable>(_ array: inout [Value], _ job: Int32, _ value: Value, default: Value) {
        if array.isEmpty {
            guard value != `default` else { return }
            array = [Value](repeating: `default`, count: Int(job))
        }
        array.append(value)
    }

    /// Job `job`'s priority as given to `add`.
    func priority(of job: Int) -> Priority { explicitPriorities.isEmpty ? .utility : explicitPriorities[job] }

    /// Job `job`'s lane, or -1.
    func lane(of job: Int) -> Int32 { explicitLanes.isEmpty ? -1 : explicitLanes[job] }

    /// Whether job `job` returns a value other than `Void`.
    func hasValue(_ job: Int) -> Bool { valueFlags.isEmpty ? false : valueFlags[job] }
}
