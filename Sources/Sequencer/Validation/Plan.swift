/// A validated workflow compiled for running: needs resolved to positions, the reverse
/// edges (dependents), lanes with their members, and each job's effective priority.
///
/// Built once per run; immutable, so every worker reads it without a lock.
final class Plan: Sendable {
    struct Lane: Sendable {
        let name: String
        let width: Int
        let ordered: Bool
        /// The lane's jobs in the order they were added.
        let members: [Int32]
    }

    let count: Int
    let ids: [JobID]
    let bodies: [any JobBody]
    /// Whether each job's result was restored (a resumed run); empty when none was.
    private let restored: [Bool]
    private let optionRefs: [Int32]
    private let optionSets: [JobOptions]
    /// Each entry of `optionSets`'s timeout in nanoseconds (at least 1), or 0 for none; empty
    /// when no job has a timeout (most runs with options), so that a worker need not look up
    /// each job's options. Converted once here, not for every job that starts.
    private let timeouts: [Int64]
    /// `needStart[i] ..< needStart[i + 1]` index job i's needs in `needs`.
    let needStart: [Int32]
    let needs: [Int32]
    /// `dependentStart[i] ..< dependentStart[i + 1]` index the jobs that need job i in `dependents`.
    let dependentStart: [Int32]
    let dependents: [Int32]
    let lanes: [Lane]
    private let lookup: JobLookup
    private let valueFlags: [Bool]
    private let explicitLanes: [Int32]
    /// Each job's priority raised to the highest priority of any job that needs it, directly or
    /// not; empty when every job has the default priority.
    private let raisedPriorities: [Priority]
    /// The coalescing keys used by the workflow's jobs, by number, and each job's key.
    let keys: InternedKeys

    /// Compiles and validates `workflow`.
    /// - Throws: ``WorkflowError`` for an unknown need or lane, a bad option, a cycle, or a
    ///   lane-order deadlock.
    /// - Complexity: O(jobs + needs), without recursion.
    init(_ workflow: Workflow, recorder: (any RunRecorder)? = nil, log: RunLog? = nil) throws {
        let count = workflow.count
        self.count = count
        ids = workflow.ids
        optionRefs = workflow.optionRefs
        optionSets = workflow.optionSets
        timeouts = !workflow.optionSets.contains { $0.timeout != nil } ? []
            : workflow.optionSets.map { $0.timeoutNanoseconds ?? 0 }
        valueFlags = workflow.valueFlags
        explicitLanes = workflow.explicitLanes
        needStart = workflow.needStart
        lookup = try JobLookup(workflow)
        needs = try lookup.resolveNeeds(workflow)
        (dependentStart, dependents) = Self.reverse(needStart: needStart, needs: needs, count: count)
        lanes = try Self.compileLanes(workflow)
        keys = workflow.keys.resolved()
        try Self.checkOptions(workflow, keys: keys)

        let graph = Graph(needStart: needStart, needs: needs, dependentStart: dependentStart, dependents: dependents)
        // Nil when the jobs were added after their needs: the add order is then one.
        let order = graph.needsComeFirst ? nil : try graph.topologicalOrder(ids: ids)
        let laneOrder = try graph.checkLaneOrder(lanes: lanes, laneOfJob: { workflow.lane(of: $0) }, ids: ids)

        // A job waits for its needs and, in an ordered lane, for the job added to the lane
        // before it: each is raised to the priority of the jobs waiting for it. Walking an
        // order where waiters come after what they wait for, backwards, raises transitively.
        var priority = workflow.explicitPriorities
        if !priority.isEmpty {
            for job in (laneOrder?.order ?? order ?? Array(0..<Int32(count))).reversed() {
                let raised = priority[Int(job)]
                for edge in Int(needStart[Int(job)])..<Int(needStart[Int(job) + 1]) {
                    let need = Int(needs[edge])
                    if priority[need] < raised { priority[need] = raised }
                }
                if let previous = laneOrder?.previous[Int(job)], previous >= 0, priority[Int(previous)] < raised {
                    priority[Int(previous)] = raised
                }
            }
        }
        raisedPriorities = priority

        // Last, once the workflow is known to be valid: a recorder begins a run here.
        var bodies = workflow.bodies
        var restored: [Bool] = []
        if let recorder, let log {
            for (id, result) in try recorder.runStarting(jobs: ids, log: log) {
                guard let job = lookup.find(id), let body = bodies[Int(job)].restoring(result) else { continue }
                if restored.isEmpty { restored = [Bool](repeating: false, count: count) }
                bodies[Int(job)] = body
                restored[Int(job)] = true
            }
        }
        self.bodies = bodies
        self.restored = restored
    }

    /// This plan with no job bodies (`bodies` is empty), for a finished run's report, which
    /// never runs one: the other arrays are shared, not copied.
    func withoutBodies() -> Plan { Plan(self, bodies: []) }

    private init(_ plan: Plan, bodies: [any JobBody]) {
        count = plan.count
        ids = plan.ids
        self.bodies = bodies
        restored = plan.restored
        optionRefs = plan.optionRefs
        optionSets = plan.optionSets
        timeouts = plan.timeouts
        needStart = plan.needStart
        needs = plan.needs
        dependentStart = plan.dependentStart
        dependents = plan.dependents
        lanes = plan.lanes
        lookup = plan.lookup
        valueFlags = plan.valueFlags
        explicitLanes = plan.explicitLanes
        raisedPriorities = plan.raisedPriorities
        keys = plan.keys
    }

    /// The plan of a queue, which starts with no jobs.
    static let empty: Plan = {
        do {
            return try Plan(Workflow())
        } catch {
            preconditionFailure("an empty workflow is valid: \(error)")
        }
    }()

    /// Whether the job's result was restored from an earlier attempt at the run.
    func isRestored(_ job: Int) -> Bool { !restored.isEmpty && job < count && restored[job] }

    /// Whether any job sets a timeout or a retry policy (a key alone is not an option here: see
    /// ``key(of:)``).
    var hasOptions: Bool { !optionSets.isEmpty }

    /// Whether the job set a timeout or a retry policy.
    func hasOptions(_ job: Int) -> Bool { !optionRefs.isEmpty && optionRefs[job] >= 0 }

    /// The job's timeout in nanoseconds, if it set one.
    func timeout(of job: Int) -> Int64? {
        guard !timeouts.isEmpty, optionRefs[job] >= 0 else { return nil }
        let timeout = timeouts[Int(optionRefs[job])]
        return timeout > 0 ? timeout : nil
    }

    /// The job's timeout and retry policy, when it set them.
    func options(of job: Int) -> JobOptions? {
        guard !optionRefs.isEmpty, optionRefs[job] >= 0 else { return nil }
        return optionSets[Int(optionRefs[job])]
    }

    /// Reads the type and witness table of each body in `jobs`, so that running them finds the
    /// bodies in cache. The jobs of a DAG's batch are far apart in `bodies` (40 bytes a job),
    /// and a worker read each one's with a cache miss of its own; read here together, the
    /// misses overlap. Jobs without a body here (added while the run runs, or a plan without
    /// bodies) are skipped.
    ///
    /// Returns a sum of what it read, for the caller to store: a value only computed would be
    /// optimised away, reads and all.
    func touchBodies(_ jobs: [Int32]) -> UInt {
        // An existential's last two words are its type and its witness table (the Swift ABI's
        // opaque existential container: a three-word buffer, then those), which every call reads.
        let size = MemoryLayout<any JobBody>.size, stride = MemoryLayout<any JobBody>.stride
        let count = UInt32(truncatingIfNeeded: bodies.count)
        return bodies.withUnsafeBytes { bytes in
            var sum: UInt = 0
            for job in jobs where UInt32(bitPattern: job) < count {
                sum &+= bytes.load(fromByteOffset: Int(job) * stride + size - 16, as: UInt.self)
                sum &+= bytes.load(fromByteOffset: Int(job) * stride + size - 8, as: UInt.self)
            }
            return sum
        }
    }

    /// Whether `job` is one of the plan's jobs (not one added while the run runs).
    func contains(_ job: Int32) -> Bool { UInt32(bitPattern: job) < UInt32(truncatingIfNeeded: count) }

    func needRange(of job: Int) -> Range<Int> { Int(needStart[job])..<Int(needStart[job + 1]) }
    func dependentRange(of job: Int) -> Range<Int> { Int(dependentStart[job])..<Int(dependentStart[job + 1]) }

    /// The position of the job `id`, or nil.
    func job(_ id: JobID) -> Int32? { lookup.find(id) }

    /// Whether the job returns a value other than `Void`.
    func hasValue(_ job: Int) -> Bool { valueFlags.isEmpty ? false : valueFlags[job] }

    /// Whether any job returns a value other than `Void`.
    var hasValues: Bool { valueFlags.contains(true) }

    /// The job's lane, by position in ``lanes``.
    func lane(of job: Int) -> Int? {
        guard !explicitLanes.isEmpty, explicitLanes[job] >= 0 else { return nil }
        return Int(explicitLanes[job])
    }

    /// Whether any job has a priority other than the default.
    var hasPriorities: Bool { !raisedPriorities.isEmpty }

    /// The priority the job runs at.
    func priority(of job: Int) -> Priority { raisedPriorities.isEmpty ? .utility : raisedPriorities[job] }

    /// The reverse edges in compressed form: count each job's dependents, turn counts into
    /// offsets, then place each edge, advancing its job's offset.
    private static func reverse(needStart: [Int32], needs: [Int32], count: Int) -> ([Int32], [Int32]) {
        var start = [Int32](repeating: 0, count: count + 2)
        for need in needs { start[Int(need) + 2] += 1 }
        for job in 0..<count { start[job + 2] += start[job + 1] }
        var dependents = [Int32](repeating: 0, count: needs.count)
        for job in 0..<count {
            for edge in Int(needStart[job])..<Int(needStart[job + 1]) {
                let slot = Int(needs[edge]) + 1
                dependents[Int(start[slot])] = Int32(job)
                start[slot] += 1
            }
        }
        start.removeLast()
        return (start, dependents)
    }

    /// The job's coalescing key number, if it has a key.
    func key(of job: Int) -> Int32? { keys.key(of: job) }

    private static func compileLanes(_ workflow: Workflow) throws -> [Lane] {
        guard !workflow.lanes.isEmpty else { return [] }
        var members = [[Int32]](repeating: [], count: workflow.lanes.count)
        for job in 0..<workflow.count where workflow.lane(of: job) >= 0 {
            members[Int(workflow.lane(of: job))].append(Int32(job))
        }
        var lanes = [Lane]()
        for (slot, lane) in workflow.lanes.enumerated() {
            guard let width = lane.width else {
                let user = members[slot].first.map { workflow.ids[Int($0)] }
                throw WorkflowError(
                    code: .unknownLane,
                    message: "job '\(user?.description ?? "?")' uses lane '\(lane.name)', which was never declared with lane(_:width:)",
                    jobs: user.map { [$0] } ?? [])
            }
            guard width >= 1 else {
                throw WorkflowError(
                    code: .invalidLaneWidth,
                    message: "lane '\(lane.name)' has width \(width); a lane's width must be at least 1")
            }
            lanes.append(Lane(name: lane.name, width: width, ordered: lane.ordered, members: members[slot]))
        }
        return lanes
    }

    /// Checks every job's options (jobs that share an options entry are checked once), and that
    /// jobs that share a coalescing key return one type.
    private static func checkOptions(_ workflow: Workflow, keys: InternedKeys) throws {
        var checked = -1
        for (job, ref) in workflow.optionRefs.enumerated() where ref > checked {
            checked = Int(ref)
            if let problem = workflow.optionSets[Int(ref)].problem(job: workflow.ids[job]) {
                throw WorkflowError(code: .invalidOption, message: problem, jobs: [workflow.ids[job]])
            }
        }
        try keys.checkTypes(ids: workflow.ids)
    }
}
