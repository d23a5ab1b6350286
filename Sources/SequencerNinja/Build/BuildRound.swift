#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One round of a build: the plan, the verdicts and the expanded variables of the edges it
/// runs. Dyndep files that are ready (built, or sources) are loaded into the graph first; an
/// edge whose dyndep file must still be built waits, with everything that depends on it, and
/// the round builds that file instead.
struct BuildRound {
    typealias NodeID = NinjaGraph.NodeID
    typealias EdgeID = NinjaGraph.EdgeID

    let graph: NinjaGraph
    let plan: BuildPlan
    let scan: UpToDateScan
    let facts: [EdgeID: EdgeFacts]
    /// For each edge the round runs, the scheduled edges that write an input its last run
    /// discovered: it waits for them, as for its inputs' edges.
    let discoveredProducers: [EdgeID: [EdgeID]]
    /// Dyndep files this round builds, to be loaded before the next.
    let pendingDyndeps: [NodeID]
    /// The edges with a command to run for all of the build's targets, as far as this round
    /// knows (the status line's total).
    let commandsToRun: Int

    struct Failure: Error {
        var message: String
    }

    init(graph: inout NinjaGraph, targets: [NodeID], hashes: BuildStateStore, records: any BuildRecords) throws(Failure) {
        var roundTargets = targets
        var pending: [NodeID] = []
        var result: (BuildPlan, UpToDateScan, [EdgeID: EdgeFacts], [EdgeID: [EdgeID]])
        var commands = 0
        while true {
            result = try Self.scan(graph, targets: roundTargets, hashes: hashes, records: records)
            let (plan, scan, _, _) = result
            if pending.isEmpty {
                commands = plan.order.count { !graph.edges[Int($0)].isPhony && scan.counts($0) }
            }
            // Dyndep files the wanted edges name that are ready now: loaded, and scanned again.
            var ready: [NodeID] = []
            var unready: [NodeID] = []
            for edgeID in plan.order {
                guard let dyndep = graph.edges[Int(edgeID)].dyndep, graph.nodes[Int(dyndep)].dyndepPending else { continue }
                if let producer = graph.nodes[Int(dyndep)].inEdge, scan.isScheduled(producer) {
                    if !unready.contains(dyndep) { unready.append(dyndep) }
                } else if !ready.contains(dyndep) {
                    ready.append(dyndep)
                }
            }
            if !ready.isEmpty {
                for node in ready {
                    do {
                        _ = try graph.load(dyndep: node)
                    } catch {
                        throw Failure(message: error.message)
                    }
                }
                continue
            }
            if !unready.isEmpty, pending.isEmpty {
                // This round builds dyndep files only: those that need no edge still waiting
                // for a dyndep file of its own (CMake's Fortran collation of one target needs
                // the compiles of the targets it uses; a later round builds it).
                let buildable = unready.filter { Self.needsNoPendingDyndep($0, in: graph) }
                pending = buildable.isEmpty ? unready : buildable
                roundTargets = pending
                continue
            }
            break
        }
        self.graph = graph
        (plan, scan, facts, discoveredProducers) = result
        pendingDyndeps = pending
        commandsToRun = commands
    }

    /// Whether building `node` runs no edge whose dyndep file is not loaded yet.
    private static func needsNoPendingDyndep(_ node: NodeID, in graph: NinjaGraph) -> Bool {
        guard let plan = try? BuildPlan(graph: graph, targets: [node]) else { return true }
        return !plan.order.contains { edge in
            graph.edges[Int(edge)].dyndep.map { graph.nodes[Int($0)].dyndepPending } ?? false
        }
    }

    private static func scan(
        _ graph: NinjaGraph, targets: [NodeID], hashes: BuildStateStore, records: any BuildRecords
    ) throws(Failure) -> (BuildPlan, UpToDateScan, [EdgeID: EdgeFacts], [EdgeID: [EdgeID]]) {
        let outputs = { (edge: EdgeID) in graph.edges[Int(edge)].outputs.map { graph.nodes[Int($0)].path } }
        var failure: ManifestError?
        // The inputs each wanted edge's last run discovered, looked up as the plan reaches it:
        // the plan walks them like the edge's own inputs (a generated header is built first).
        var discovered: [EdgeID: [String]] = [:]
        // Those of them that an edge writes.
        var written: [EdgeID: [NodeID]] = [:]
        let plan: BuildPlan
        do throws(BuildPlan.Failure) {
            plan = try BuildPlan(graph: graph, targets: targets) { edgeID in
                guard !graph.edges[Int(edgeID)].isPhony, failure == nil else { return [] }
                let depfile: EdgeFacts
                do throws(ManifestError) {
                    depfile = EdgeFacts(command: "", depfile: try graph.depfile(of: edgeID), deps: try graph.deps(of: edgeID))
                } catch {
                    failure = error
                    return []
                }
                guard !depfile.deps.isEmpty || !depfile.depfile.isEmpty else { return [] }
                let found = records.discoveredInputs(outputs: outputs(edgeID), facts: depfile)
                discovered[edgeID] = found
                let nodes = found.compactMap { path in graph.node(at: path).flatMap { graph.nodes[Int($0)].inEdge == nil ? nil : $0 } }
                if !nodes.isEmpty { written[edgeID] = nodes }
                return nodes
            }
        } catch {
            throw Failure(message: error.message)
        }
        if let failure { throw Failure(message: failure.message) }
        // Each edge's variables are expanded to decide it, and kept only when it runs: a
        // Chromium-sized no-op would otherwise hold every command line at once.
        func evaluate(_ edge: EdgeID) -> EdgeFacts {
            guard failure == nil else { return EdgeFacts(command: "") }
            do throws(ManifestError) {
                return try EdgeEvaluation.facts(of: edge, in: graph, description: false)
            } catch {
                failure = error
                return EdgeFacts(command: "")
            }
        }
        var kept: [EdgeID: EdgeFacts] = [:]
        let scan: UpToDateScan
        do {
            scan = try UpToDateScan(
                graph: graph, plan: plan, fingerprint: EdgeFingerprint(graph: graph, hashes: hashes),
                facts: evaluate,
                discovered: { discovered[$0] ?? [] },
                recorded: { edge in outputs(edge).first.flatMap { hashes.fingerprint(of: $0) } },
                adopt: { edge, facts, inputs, fingerprint in
                    let outputs = outputs(edge)
                    guard records.ninjaConsidersUpToDate(outputs: outputs, facts: facts, inputs: inputs) else { return false }
                    hashes.record(outputs[0], fingerprint: fingerprint)
                    return true
                },
                dirty: { kept[$0] = $1 })
        } catch {
            throw Failure(message: error.message)
        }
        // The edges that run or wait were not all expanded by the scan.
        for edgeID in plan.order where kept[edgeID] == nil && scan.isScheduled(edgeID) && !graph.edges[Int(edgeID)].isPhony {
            kept[edgeID] = evaluate(edgeID)
        }
        if let failure { throw Failure(message: failure.message) }
        var producers: [EdgeID: [EdgeID]] = [:]
        for (edgeID, nodes) in written where scan.isScheduled(edgeID) {
            let scheduled = nodes.compactMap { graph.nodes[Int($0)].inEdge }.filter { $0 != edgeID && scan.isScheduled($0) }
            if !scheduled.isEmpty { producers[edgeID] = scheduled }
        }
        return (plan, scan, kept, producers)
    }

    /// Whether an edge with a command is to run.
    var hasWork: Bool {
        plan.order.contains { edge in
            guard !graph.edges[Int(edge)].isPhony else { return false }
            switch scan.verdicts[Int(edge)] {
            case .dirty?, .waiting?, .pendingDyndep?: return true
            default: return false
            }
        }
    }

    /// `-d explain`: why each edge runs. A changed fingerprint is told part by part when the
    /// journal kept the parts of the edge's last success (`stored`).
    func explainDirty(hashes: BuildStateStore, records: any BuildRecords, stored: (String, String) -> [String: String]?) {
        for edgeID in plan.order {
            guard !graph.edges[Int(edgeID)].isPhony, case .dirty(var reason) = scan.verdicts[Int(edgeID)] else { continue }
            let outputs = graph.edges[Int(edgeID)].outputs.map { graph.nodes[Int($0)].path }
            if reason == UpToDateScan.changed(outputs[0]), let facts = facts[edgeID],
                let before = hashes.fingerprint(of: outputs[0]), let parts = stored(outputs[0], before.short)
            {
                let now = EdgeFingerprint(graph: graph, hashes: hashes)
                    .parts(edgeID, facts: facts, discovered: records.discoveredInputs(outputs: outputs, facts: facts))
                if let explained = EdgeFingerprint.explain(now, before: parts) { reason = "\(outputs[0]): \(explained)" }
            }
            writeAll(STDERR_FILENO, Array("ninja explain: \(reason)\n".utf8))
        }
    }
}
