internal import Sequencer

/// ninja's `Plan::CleanNode`: when an edge ends and leaves its outputs as they were (an edge
/// found up to date when its turn came, or a `restat` edge that rewrote nothing), each edge
/// waiting on it whose every other input's edge (order-only ones aside) has ended so too is
/// decided at once, and so on down: one found up to date leaves the status line's total then,
/// not when its own turn comes, as ninja's total shrinks.
///
/// The edges decided here are told so when their bodies start (``start(_:)``). An edge's body
/// starts only after every edge it needs has ended, and each of those calls ``ended(_:decide:)``
/// before it ends, so a decision is never made for an edge already started.
final class EagerCleaning: Sendable {
    typealias EdgeID = NinjaGraph.EdgeID

    /// For each scheduled edge, the waiting edges that read its outputs other than order-only.
    private let dependents: [EdgeID: [EdgeID]]
    /// For each waiting edge, the scheduled edges behind its inputs other than order-only.
    private let producers: [EdgeID: [EdgeID]]
    private let phony: Set<EdgeID>
    private let state = Locked(State())

    private struct State {
        /// Edges that ended leaving their outputs as they were.
        var unchanged = Set<EdgeID>()
        /// Edges decided here: up to date (true) or to run (false).
        var decided: [EdgeID: Bool] = [:]
        var started = Set<EdgeID>()
    }

    convenience init(graph: NinjaGraph, plan: BuildPlan, scan: UpToDateScan) {
        var producers: [EdgeID: [EdgeID]] = [:]
        var phony = Set<EdgeID>()
        for edgeID in plan.order {
            guard case .waiting? = scan.verdicts[Int(edgeID)], !scan.forced[Int(edgeID)] else { continue }
            let edge = graph.edges[Int(edgeID)]
            if edge.isPhony { phony.insert(edgeID) }
            var seen = Set<EdgeID>()
            for input in edge.inputs.prefix(edge.inputs.count - edge.orderOnlyInputs) {
                guard let producer = graph.nodes[Int(input)].inEdge, scan.verdicts[Int(producer)] != .passThrough,
                    scan.isScheduled(producer), seen.insert(producer).inserted
                else { continue }
                producers[edgeID, default: []].append(producer)
            }
        }
        self.init(producers: producers, phony: phony)
    }

    /// - Parameters:
    ///   - producers: for each waiting edge, the edges behind its inputs other than order-only.
    ///   - phony: the waiting edges without a command.
    init(producers: [EdgeID: [EdgeID]], phony: Set<EdgeID>) {
        var dependents: [EdgeID: [EdgeID]] = [:]
        for (edge, behind) in producers.sorted(by: { $0.key < $1.key }) {
            for producer in behind { dependents[producer, default: []].append(edge) }
        }
        self.dependents = dependents
        self.producers = producers
        self.phony = phony
    }

    /// The body of `edge` starts: true when it was found up to date here, false when found to
    /// run, nil when it was not decided here.
    func start(_ edge: EdgeID) -> Bool? {
        state.withLock { state in
            state.started.insert(edge)
            return state.decided[edge]
        }
    }

    /// `edge` ended leaving its outputs as they were: the waiting edges it frees are decided
    /// with `decide` (true: up to date, called with a lock held, for edges with a command), and
    /// those found up to date free theirs in turn.
    func ended(_ edge: EdgeID, decide: (EdgeID) -> Bool) {
        state.withLock { state in
            var freed = [edge]
            while let next = freed.popLast() {
                state.unchanged.insert(next)
                for dependent in dependents[next] ?? [] {
                    guard state.decided[dependent] == nil, !state.started.contains(dependent),
                        (producers[dependent] ?? []).allSatisfy(state.unchanged.contains)
                    else { continue }
                    let upToDate = phony.contains(dependent) || decide(dependent)
                    state.decided[dependent] = upToDate
                    if upToDate { freed.append(dependent) }
                }
            }
        }
    }
}
