/// Decides, before a build starts, which wanted edges must run.
///
/// An edge must run when an output is missing, when its fingerprint differs from the one it
/// had when it last succeeded (``EdgeFingerprint``), or when an edge that writes one of its
/// inputs must run (then it is decided again once that edge has ended: if the input came out
/// the same, it does not run). Phony edges never run; they pass on what their inputs say, and
/// one with no inputs whose output is missing makes its dependents always run, as in ninja.
struct UpToDateScan {
    typealias EdgeID = NinjaGraph.EdgeID

    enum Verdict: Equatable {
        /// Up to date.
        case clean
        /// Must run, for this reason (`-d explain`).
        case dirty(String)
        /// An input's edge must run: decided again after it.
        case waiting(String)
    }

    /// Per graph edge: its verdict (nil: not wanted).
    private(set) var verdicts: [Verdict?]
    /// Edges that must run whatever their fingerprint says: a phony input with no inputs and
    /// no file, directly or through phony edges.
    private(set) var forced: [Bool]

    struct MissingInput: Error {
        var message: String
    }

    /// - Parameters:
    ///   - facts: an edge's expanded variables.
    ///   - discovered: the inputs an edge's last run discovered.
    ///   - recorded: an edge's fingerprint when it last succeeded.
    init(
        graph: NinjaGraph, plan: BuildPlan, fingerprint: EdgeFingerprint,
        facts: (EdgeID) -> EdgeFacts, discovered: (EdgeID) -> [String], recorded: (EdgeID) -> Digest?,
        adopt: (EdgeID, EdgeFacts, [String], Digest) -> Bool = { _, _, _, _ in false }
    ) throws(MissingInput) {
        verdicts = Array(repeating: nil, count: graph.edges.count)
        forced = Array(repeating: false, count: graph.edges.count)
        for edgeID in plan.order {
            let edge = graph.edges[Int(edgeID)]
            var waitingOn: String?
            var force = false
            for (position, input) in edge.inputs.enumerated() {
                let node = graph.nodes[Int(input)]
                let orderOnly = position >= edge.inputs.count - edge.orderOnlyInputs
                guard let producer = node.inEdge else {
                    if !node.generatedByDepLoader, !FileStamp.of(node.path).exists {
                        let through = graph.nodes[Int(plan.reachedThrough[Int(edgeID)])].path
                        throw MissingInput(message: "'\(node.path)', needed by '\(through)', missing and no known rule to make it")
                    }
                    continue
                }
                guard !orderOnly else { continue }
                switch verdicts[Int(producer)] {
                case .dirty?, .waiting?:
                    waitingOn = waitingOn ?? "\(node.path) is dirty"
                default: break
                }
                if forced[Int(producer)] { force = true }
            }
            if edge.isPhony {
                if edge.inputs.isEmpty, let output = edge.outputs.first, !FileStamp.of(graph.nodes[Int(output)].path).exists {
                    force = true
                }
                forced[Int(edgeID)] = force
                verdicts[Int(edgeID)] = force ? .dirty("phony output without inputs is missing") : (waitingOn.map { .waiting($0) } ?? .clean)
                continue
            }
            forced[Int(edgeID)] = force
            if force {
                verdicts[Int(edgeID)] = .dirty("an input is a missing phony output with no inputs")
                continue
            }
            if let waitingOn {
                verdicts[Int(edgeID)] = .waiting(waitingOn)
                continue
            }
            let edgeFacts = facts(edgeID)
            let firstOutput = graph.nodes[Int(edge.outputs.first ?? 0)].path
            let found = discovered(edgeID)
            guard let now = fingerprint.current(edgeID, facts: edgeFacts, discovered: found) else {
                let missing = edge.outputs.map { graph.nodes[Int($0)].path }.first { !FileStamp.of($0).exists } ?? firstOutput
                verdicts[Int(edgeID)] = .dirty("output \(missing) doesn't exist")
                continue
            }
            guard let before = recorded(edgeID) else {
                // Built by ninja? Then ninja's files say whether it is up to date, once.
                let inputs = edge.dirtyingInputs.map { graph.nodes[Int($0)].path } + found
                verdicts[Int(edgeID)] =
                    adopt(edgeID, edgeFacts, inputs, now) ? .clean : .dirty("no record of a successful run of \(firstOutput)")
                continue
            }
            verdicts[Int(edgeID)] = now == before ? .clean : .dirty("the command, an input or an output of \(firstOutput) changed")
        }
    }

    /// Whether the edge is to run (or to be decided again) in this build.
    func isScheduled(_ edge: EdgeID) -> Bool {
        switch verdicts[Int(edge)] {
        case .dirty?, .waiting?: true
        default: false
        }
    }
}
