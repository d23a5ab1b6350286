/// A validated workflow compiled for running: needs resolved to indices, the reverse
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
    let bodies: [JobBody]
    let index: [JobID: Int32]
    let hasValue: [Bool]
    let options: [Int32: JobOptions]
    /// `needStart[i] ..< needStart[i + 1]` index job i's needs in `needs`.
    let needStart: [Int32]
    let needs: [Int32]
    /// `dependentStart[i] ..< dependentStart[i + 1]` index the jobs that need job i in `dependents`.
    let dependentStart: [Int32]
    let dependents: [Int32]
    /// Each job's priority raised to the highest priority of any job that needs it, directly or not.
    let priority: [Priority]
    /// Each job's lane, or -1.
    let laneOfJob: [Int32]
    let lanes: [Lane]

    /// Compiles and validates `workflow`.
    /// - Throws: ``WorkflowError`` for an unknown need or lane, a bad width, a cycle, or a lane-order deadlock.
    /// - Complexity: O(jobs + needs), without recursion.
    init(_ workflow: Workflow) throws {
        let count = workflow.count
        self.count = count
        ids = workflow.ids
        bodies = workflow.bodies
        index = workflow.index
        hasValue = workflow.hasValue
        options = workflow.options
        laneOfJob = workflow.laneOfJob
        needStart = workflow.needStart

        var needs = [Int32]()
        needs.reserveCapacity(workflow.needIDs.count)
        var dependentCount = [Int32](repeating: 0, count: count + 1)
        for job in 0..<count {
            for need in workflow.needs(of: job) {
                guard let target = workflow.index[need] else {
                    throw WorkflowError(
                        code: .unknownNeed,
                        message: "job '\(workflow.ids[job])' needs '\(need)', which is not a job in the workflow",
                        jobs: [workflow.ids[job], need])
                }
                needs.append(target)
                dependentCount[Int(target)] += 1
            }
        }
        self.needs = needs

        // Reverse edges in compressed form: offsets by prefix sum, then fill.
        var dependentStart = [Int32](repeating: 0, count: count + 1)
        for job in 0..<count { dependentStart[job + 1] = dependentStart[job] + dependentCount[job] }
        var fill = dependentStart
        var dependents = [Int32](repeating: 0, count: needs.count)
        for job in 0..<count {
            for edge in Int(needStart[job])..<Int(needStart[job + 1]) {
                let need = Int(needs[edge])
                dependents[Int(fill[need])] = Int32(job)
                fill[need] += 1
            }
        }
        self.dependentStart = dependentStart
        self.dependents = dependents

        var members = [[Int32]](repeating: [], count: workflow.lanes.count)
        for job in 0..<count where workflow.laneOfJob[job] >= 0 {
            members[Int(workflow.laneOfJob[job])].append(Int32(job))
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
                throw WorkflowError(code: .invalidLaneWidth, message: "lane '\(lane.name)' has width \(width); a lane's width must be at least 1")
            }
            lanes.append(Lane(name: lane.name, width: width, ordered: lane.ordered, members: members[slot]))
        }
        self.lanes = lanes

        for (job, options) in workflow.options {
            if let timeout = options.timeout, timeout <= .zero {
                throw WorkflowError(code: .invalidOption, message: "job '\(ids[Int(job)])' has timeout \(timeout); a timeout must be positive", jobs: [ids[Int(job)]])
            }
            if options.retry.maxAttempts < 1 {
                throw WorkflowError(code: .invalidOption, message: "job '\(ids[Int(job)])' allows \(options.retry.maxAttempts) attempts; at least 1 is needed", jobs: [ids[Int(job)]])
            }
        }

        let graph = Graph(needStart: needStart, needs: needs, dependentStart: dependentStart, dependents: dependents)
        let order = try graph.topologicalOrder(ids: ids)
        try graph.checkLaneOrder(lanes: lanes, laneOfJob: laneOfJob, ids: ids)

        var priority = workflow.priorities
        for job in order.reversed() {
            let raised = priority[Int(job)]
            for edge in Int(needStart[Int(job)])..<Int(needStart[Int(job) + 1]) {
                let need = Int(needs[edge])
                if priority[need] < raised { priority[need] = raised }
            }
        }
        self.priority = priority
    }

    func needRange(of job: Int) -> Range<Int> { Int(needStart[job])..<Int(needStart[job + 1]) }
    func dependentRange(of job: Int) -> Range<Int> { Int(dependentStart[job])..<Int(dependentStart[job + 1]) }
}
