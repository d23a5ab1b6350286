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
        /// Its dyndep file is not loaded yet: decided once it is. Counted in the status line's
        /// total when it must run whatever the file adds (an output is missing, or it never
        /// succeeded), as ninja counts it.
        case pendingDyndep(counts: Bool)
        /// Up to date, but an edge that writes one of its inputs (an order-only one, say) runs:
        /// it ends after that edge, so that what it orders waits too (ninja's "outputs not
        /// ready"). It runs no command.
        case passThrough
    }

    /// The reason of an edge whose fingerprint changed: the journal's record of its last
    /// success tells which part (``EdgeFingerprint/explain(_:before:)``).
    static func changed(_ firstOutput: String) -> String { "the command, an input or an output of \(firstOutput) changed" }

    /// Per graph edge: its verdict (nil: not wanted).
    private(set) var verdicts: [Verdict?]
    /// Edges that must run whatever their fingerprint says: a phony input with no inputs and
    /// no file, directly or through phony edges (not through an edge with a command: what it
    /// writes decides, as for any input).
    private(set) var forced: [Bool]
    /// Whether each edge counts in the status line's total (see ``counts(_:)``).
    private var counted: [Bool]

    struct MissingInput: Error {
        var message: String
    }

    /// - Parameters:
    ///   - facts: an edge's expanded variables.
    ///   - discovered: the inputs an edge's last run discovered.
    ///   - recorded: an edge's fingerprint when it last succeeded.
    ///   - adopt: whether ninja's files say an edge Sequencer has no record of is up to date.
    ///   - dirty: told of each edge found to run with the facts that were expanded to decide
    ///     it (those of an up-to-date edge are not kept: a build keeps only what it runs).
    init(
        graph: NinjaGraph, plan: BuildPlan, fingerprint: EdgeFingerprint,
        facts: (EdgeID) -> EdgeFacts, discovered: (EdgeID) -> [String], recorded: (EdgeID) -> Digest?,
        adopt: (EdgeID, EdgeFacts, [String], Digest) -> Bool = { _, _, _, _ in false },
        dirty: (EdgeID, EdgeFacts) -> Void = { _, _ in }
    ) throws(MissingInput) {
        verdicts = Array(repeating: nil, count: graph.edges.count)
        forced = Array(repeating: false, count: graph.edges.count)
        var passesThrough = Array(repeating: false, count: graph.edges.count)
        counted = Array(repeating: false, count: graph.edges.count)
        for edgeID in plan.order {
            // Whether what it waits for counts: an edge waiting only for edges that wait for
            // their dyndep file (and are not known to run) is not counted yet, as in ninja.
            var waitingCounts = false
            defer {
                if verdicts[Int(edgeID)] == .clean, passesThrough[Int(edgeID)] { verdicts[Int(edgeID)] = .passThrough }
                switch verdicts[Int(edgeID)] {
                case .dirty?: counted[Int(edgeID)] = true
                case .waiting?: counted[Int(edgeID)] = waitingCounts
                case .pendingDyndep(let counts)?: counted[Int(edgeID)] = counts
                default: break
                }
            }
            let edge = graph.edges[Int(edgeID)]
            var waitingOn: String?
            var force = false
            var anyInputScheduled = false
            // The inputs its last run discovered count as implicit inputs: a generated header
            // whose edge runs makes it wait, and a missing one is no error (it runs, as in ninja).
            let found = edge.isPhony ? [] : discovered(edgeID)
            for path in found {
                guard let node = graph.node(at: path), let producer = graph.nodes[Int(node)].inEdge else { continue }
                switch verdicts[Int(producer)] {
                case .dirty?, .waiting?, .pendingDyndep?:
                    waitingOn = waitingOn ?? "\(path) is dirty"
                    anyInputScheduled = true
                    if counted[Int(producer)] { waitingCounts = true }
                default: break
                }
                if forced[Int(producer)], graph.edges[Int(producer)].isPhony { force = true }
            }
            for (position, input) in edge.inputs.enumerated() {
                let node = graph.nodes[Int(input)]
                let orderOnly = position >= edge.inputs.count - edge.orderOnlyInputs
                guard let producer = node.inEdge else { continue }
                if isScheduled(producer) { anyInputScheduled = true }
                guard !orderOnly else { continue }
                switch verdicts[Int(producer)] {
                case .dirty?, .waiting?, .pendingDyndep?:
                    waitingOn = waitingOn ?? "\(node.path) is dirty"
                    if counted[Int(producer)] { waitingCounts = true }
                default: break
                }
                if forced[Int(producer)], graph.edges[Int(producer)].isPhony { force = true }
            }
            passesThrough[Int(edgeID)] = anyInputScheduled
            if edge.isPhony {
                if edge.inputs.isEmpty, let output = edge.outputs.first, !FileStamp.of(graph.nodes[Int(output)].path).exists {
                    force = true
                }
                forced[Int(edgeID)] = force
                verdicts[Int(edgeID)] = force ? .dirty("phony output without inputs is missing") : (waitingOn.map { .waiting($0) } ?? .clean)
                continue
            }
            forced[Int(edgeID)] = force
            if let dyndep = edge.dyndep, graph.nodes[Int(dyndep)].dyndepPending {
                let outputsMissing = edge.outputs.contains { !FileStamp.of(graph.nodes[Int($0)].path).exists }
                let neverRan = edge.outputs.first.map { _ in recorded(edgeID) == nil } ?? true
                verdicts[Int(edgeID)] = .pendingDyndep(counts: waitingCounts || force || outputsMissing || neverRan)
                continue
            }
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
            guard let now = fingerprint.current(edgeID, facts: edgeFacts, discovered: found) else {
                let missing = edge.outputs.map { graph.nodes[Int($0)].path }.first { !FileStamp.of($0).exists } ?? firstOutput
                verdicts[Int(edgeID)] = .dirty("output \(missing) doesn't exist")
                dirty(edgeID, edgeFacts)
                continue
            }
            guard let before = recorded(edgeID) else {
                // Built by ninja? Then ninja's files say whether it is up to date, once.
                let inputs = edge.dirtyingInputs.map { graph.nodes[Int($0)].path } + found
                if adopt(edgeID, edgeFacts, inputs, now) {
                    verdicts[Int(edgeID)] = .clean
                } else {
                    verdicts[Int(edgeID)] = .dirty("no record of a successful run of \(firstOutput)")
                    dirty(edgeID, edgeFacts)
                }
                continue
            }
            verdicts[Int(edgeID)] = now == before ? .clean : .dirty(Self.changed(firstOutput))
            if now != before { dirty(edgeID, edgeFacts) }
        }
        // A missing input no edge writes, in the order ninja's walk finds them (the first is
        // reported): through edges that run or wait (ninja does not walk into an edge that is
        // up to date, so a missing order-only input of one is no error), unless the edge's last
        // run discovered it (a deleted header: the edge runs).
        // Whether ninja walks into each edge: one that must run (a phony edge without inputs
        // never does: it is always ready), or one behind which an input's edge must.
        var walked = Array(repeating: false, count: graph.edges.count)
        for edgeID in plan.order {
            let edge = graph.edges[Int(edgeID)]
            switch verdicts[Int(edgeID)] {
            case .dirty?, .waiting?, .pendingDyndep?: walked[Int(edgeID)] = !(edge.isPhony && edge.inputs.isEmpty)
            case .passThrough?: walked[Int(edgeID)] = edge.inputs.contains { graph.nodes[Int($0)].inEdge.map { walked[Int($0)] } ?? false }
            default: break
            }
        }
        for (node, neededBy) in plan.sources where !graph.nodes[Int(node)].generatedByDepLoader {
            let path = graph.nodes[Int(node)].path
            guard !FileStamp.of(path).exists else { continue }
            if neededBy >= 0 {
                guard let reader = graph.nodes[Int(neededBy)].inEdge else { continue }
                // A phony edge is dirty in ninja's eyes when an input it does not only order
                // is missing: ninja walks into it, and names it.
                let readerEdge = graph.edges[Int(reader)]
                let dirtiesPhony = readerEdge.isPhony
                    && readerEdge.inputs.prefix(readerEdge.inputs.count - readerEdge.orderOnlyInputs).contains(node)
                guard walked[Int(reader)] || dirtiesPhony else { continue }
                if !graph.edges[Int(reader)].isPhony, discovered(reader).contains(path) { continue }
            }
            let by = neededBy >= 0 ? ", needed by '\(graph.nodes[Int(neededBy)].path)'," : ""
            throw MissingInput(message: "'\(path)'\(by) missing and no known rule to make it")
        }
    }

    /// Whether the edge is to run (or to be decided again) in this build.
    func isScheduled(_ edge: EdgeID) -> Bool {
        switch verdicts[Int(edge)] {
        case .dirty?, .waiting?, .pendingDyndep?, .passThrough?: true
        default: false
        }
    }

    /// Whether the edge counts in the status line's total now: known to run, or waiting for
    /// an input's edge (ninja counts both; an edge waiting for its dyndep file counts once
    /// the file is loaded).
    func counts(_ edge: EdgeID) -> Bool { counted[Int(edge)] }
}
