/// What is run: N independent jobs, or N jobs in the benchmark's random graph.
enum Workload: String, Codable, CaseIterable, Sendable {
    /// N independent no-op jobs.
    case flat
    /// N no-op jobs, each needing up to three earlier ones (``RandomDAG``).
    case dag

    /// The implementation the others are compared with: the hand-written way (flat) or the
    /// bookkeeping floor (dag).
    var reference: Implementation {
        switch self {
        case .flat: .discardingTaskGroup
        case .dag: .topologicalLoop
        }
    }

    /// The implementations measured for this workload, in the order they are run and printed.
    var implementations: [Implementation] {
        switch self {
        case .flat: [.sequencer, .sequencerBuildOnly, .taskGroup, .discardingTaskGroup, .operationQueue]
        case .dag: [.sequencer, .sequencerBuildOnly, .topologicalLoop, .taskGroupDAG, .operationQueueDependencies]
        }
    }

    /// The Sequencer option variants measured for this workload: children only for flat.
    var optionVariants: [Implementation] {
        Implementation.optionVariants.filter { self == .flat || ($0 != .sequencerChildren && $0 != .sequencerOneChild) }
    }
}

/// How a workload is carried out: by Sequencer (plain or with options) or by a baseline.
enum Implementation: String, Codable, CaseIterable, Sendable {
    /// Sequencer with default job options.
    case sequencer
    /// Sequencer with jobs spread round-robin over 4 ordered lanes of width 2.
    case sequencerLanes = "sequencer+lanes"
    /// Sequencer with priorities round-robin over the four levels.
    case sequencerPriorities = "sequencer+priorities"
    /// Sequencer with `retry: .exponential(attempts: 3)` on every job (never used: nothing fails).
    case sequencerRetry = "sequencer+retry"
    /// Sequencer's share that is not the run: building the workflow (names, needs by `JobID`)
    /// and compiling it, as `validate()` does, without running a job.
    case sequencerBuildOnly = "sequencer-build"
    /// Sequencer with lanes, priorities and retry together.
    case sequencerAll = "sequencer+all"
    /// Sequencer with `timeout: .seconds(60)` on every job (never reached; a timer per attempt).
    case sequencerTimeout = "sequencer+timeout"
    /// Sequencer with a coalescing key of its own on every job (nothing shared).
    case sequencerDistinctKeys = "sequencer+keys"
    /// Sequencer with one coalescing key on every job (one body runs, the others share its result).
    case sequencerSharedKey = "sequencer+one-key"
    /// Sequencer recording the run in an SQLite journal (a temporary file).
    case sequencerJournal = "sequencer+journal"
    /// Sequencer with N/100 parents, each adding 100 no-op children and waiting for them (flat only).
    case sequencerChildren = "sequencer+children"
    /// Sequencer with N/2 parents, each adding one no-op child and waiting for it (flat only).
    case sequencerOneChild = "sequencer+one-child"
    /// `withTaskGroup`, a child per job, then `waitForAll`.
    case taskGroup = "withTaskGroup"
    /// `withDiscardingTaskGroup`, a child per job.
    case discardingTaskGroup = "withDiscardingTaskGroup"
    /// Foundation `OperationQueue`, a `BlockOperation` per job, width = cores.
    case operationQueue = "OperationQueue"
    /// Kahn's algorithm on one thread: the bookkeeping floor for a graph.
    case topologicalLoop = "topo-floor"
    /// A task per job in a discarding task group; each awaits its needs' completion signals.
    case taskGroupDAG = "TaskGroup-DAG"
    /// Foundation `OperationQueue` with `addDependency` per need, width = cores.
    case operationQueueDependencies = "OperationQueue+deps"

    /// The Sequencer variants of the options-overhead rows, compared with plain ``sequencer``.
    static let optionVariants: [Implementation] = [
        .sequencerLanes, .sequencerPriorities, .sequencerRetry, .sequencerAll, .sequencerTimeout,
        .sequencerDistinctKeys, .sequencerSharedKey, .sequencerChildren, .sequencerOneChild, .sequencerJournal,
    ]

    /// The options this Sequencer variant sets; empty for plain Sequencer and the baselines.
    var jobSettings: JobSettings {
        switch self {
        case .sequencerLanes: .lanes
        case .sequencerPriorities: .priorities
        case .sequencerRetry: .retry
        case .sequencerAll: [.lanes, .priorities, .retry]
        case .sequencerTimeout: .timeout
        case .sequencerDistinctKeys: .distinctKeys
        case .sequencerSharedKey: .sharedKey
        case .sequencerJournal: .journal
        default: []
        }
    }

    /// True for Sequencer and the option variants that set ``jobSettings``.
    var isSequencer: Bool { self == .sequencer || !jobSettings.isEmpty }

    /// Runs the workload once and returns how many jobs ran.
    /// - Parameters:
    ///   - workload: flat or dag.
    ///   - count: the number of jobs.
    ///   - dag: the graph, for the dag workload.
    /// - Throws: when the implementation cannot run this workload, or Sequencer reports a failure.
    func run(_ workload: Workload, count: Int, dag: RandomDAG?) async throws -> Int {
        switch (workload, self) {
        case (.flat, _) where isSequencer:
            return try await SequencerWorkloads.flat(count: count, settings: jobSettings)
        case (.dag, _) where isSequencer:
            return try await SequencerWorkloads.dag(try required(dag), settings: jobSettings)
        case (.flat, .sequencerBuildOnly):
            return try SequencerWorkloads.buildFlat(count: count)
        case (.dag, .sequencerBuildOnly):
            return try SequencerWorkloads.buildDAG(try required(dag))
        case (.flat, .sequencerChildren):
            return try await SequencerWorkloads.children(count: count, perParent: SequencerWorkloads.childrenPerParent)
        case (.flat, .sequencerOneChild):
            return try await SequencerWorkloads.children(count: count, perParent: 1)
        case (.flat, .taskGroup):
            return await FlatBaselines.taskGroup(count: count)
        case (.flat, .discardingTaskGroup):
            return await FlatBaselines.discardingTaskGroup(count: count)
        case (.flat, .operationQueue):
            return FlatBaselines.operationQueue(count: count)
        case (.dag, .topologicalLoop):
            return DAGBaselines.topologicalLoop(try required(dag))
        case (.dag, .taskGroupDAG):
            return await DAGBaselines.taskGroup(try required(dag))
        case (.dag, .operationQueueDependencies):
            return DAGBaselines.operationQueue(try required(dag))
        default:
            throw BenchFailure("\(rawValue) does not implement the \(workload.rawValue) workload")
        }
    }

    private func required(_ dag: RandomDAG?) throws -> RandomDAG {
        guard let dag else { throw BenchFailure("the dag workload needs a graph") }
        return dag
    }
}

/// A measurement that could not be made, with the reason.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
