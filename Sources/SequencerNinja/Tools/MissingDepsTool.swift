/// `ninja -t missingdeps [TARGET...]`: the inputs that the deps log (or, for edges without
/// `deps`, the depfile) says an output read, which some edge generates, but which the
/// output's edge does not depend on through the manifest: a build may read them before they
/// are generated. Exits with 3 when there are some.
struct MissingDepsTool {
    private let graph: NinjaGraph
    private let depsLog: NinjaDepsLog
    private let printer: ToolPrinter
    private let directory: String?
    /// The outputs processed (ninja's count of nodes).
    private var seen = Set<NinjaGraph.NodeID>()
    private var nodesMissingDeps = Set<NinjaGraph.NodeID>()
    private var generatedNodes = Set<NinjaGraph.NodeID>()
    /// The rules of the generating edges: a scope and a name.
    private var generatorRules = Set<RuleIdentity>()
    private var missingDepPathCount = 0
    /// Whether an edge is reachable from another through inputs: `[from: [to: result]]`.
    private var pathExists: [NinjaGraph.EdgeID: [NinjaGraph.EdgeID: Bool]] = [:]

    /// A rule: rules of the same name in different scopes are different rules.
    private struct RuleIdentity: Hashable {
        var scope: NinjaGraph.ScopeID
        var name: String
    }

    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        let targets = try ToolTargetLookup.targets(invocation.arguments, in: invocation.graph, depsLog: invocation.depsLog)
        var scanner = MissingDepsTool(
            graph: invocation.graph, depsLog: invocation.depsLog, printer: invocation.printer, directory: invocation.directory)
        try scanner.process(targets)
        scanner.printStatistics()
        return scanner.nodesMissingDeps.isEmpty ? 0 : 3
    }

    private init(graph: NinjaGraph, depsLog: NinjaDepsLog, printer: ToolPrinter, directory: String?) {
        self.directory = directory
        self.graph = graph
        self.depsLog = depsLog
        self.printer = printer
    }

    /// Visits the outputs under `targets`, inputs first (ninja's `ProcessNode`).
    private mutating func process(_ targets: [NinjaGraph.NodeID]) throws(ManifestError) {
        let graph = self.graph
        var seen = self.seen
        var order: [NinjaGraph.NodeID] = []
        ToolDepthFirstWalk.walk(
            roots: targets,
            children: { node in graph.nodes[Int(node)].inEdge.map { graph.edges[Int($0)].inputs } ?? [] },
            enter: { node in graph.nodes[Int(node)].inEdge != nil && seen.insert(node).inserted },
            leave: { order.append($0) })
        self.seen = seen
        for node in order { try processDeps(of: node) }
    }

    /// Checks what the deps log (for an edge with `deps`) or the depfile says `node` read.
    private mutating func processDeps(of node: NinjaGraph.NodeID) throws(ManifestError) {
        guard let edge = graph.nodes[Int(node)].inEdge else { return }
        if !(try graph.deps(of: edge)).isEmpty {
            if let deps = depsLog.deps(of: graph.nodes[Int(node)].path) { check(node, discovered: deps.inputs) }
        } else if let inputs = try depfileInputs(of: edge), !inputs.isEmpty {
            check(node, discovered: inputs)
        }
    }

    /// The inputs the edge's depfile lists, canonical; nil when it has none, or one that
    /// cannot be read or does not match the edge (ninja ignores those here).
    private func depfileInputs(of edge: NinjaGraph.EdgeID) throws(ManifestError) -> [String]? {
        let path = try graph.depfile(of: edge)
        guard !path.isEmpty, case .success(let content?) = ToolDisk.read(path, in: directory), !content.isEmpty,
            let depfile = try? NinjaDepfile(parsing: content), let primary = depfile.outputs.first
        else { return nil }
        let outputs = graph.edges[Int(edge)].outputs.map { graph.nodes[Int($0)].path }
        guard let firstOutput = outputs.first, try CanonicalPath.canonicalize(primary) == firstOutput else { return nil }
        for output in depfile.outputs.dropFirst() where !outputs.contains(output) { return nil }
        var inputs: [String] = []
        for input in depfile.inputs { inputs.append(try CanonicalPath.canonicalize(input)) }
        return inputs
    }

    /// Reports the discovered inputs of `node` that an edge generates with no path through the
    /// manifest from that edge to the node's (ninja's `ProcessNodeDeps`).
    private mutating func check(_ node: NinjaGraph.NodeID, discovered: [String]) {
        guard let edge = graph.nodes[Int(node)].inEdge else { return }
        // A dependency on the manifest means "rebuild when reconfigured": never missing.
        if discovered.contains("build.ninja") { return }
        let generators: [(path: String, node: NinjaGraph.NodeID?)] = discovered.map { ($0, graph.node(at: $0)) }
        var generatingEdges = Set<NinjaGraph.EdgeID>()
        for generator in generators {
            if let node = generator.node, let inEdge = graph.nodes[Int(node)].inEdge { generatingEdges.insert(inEdge) }
        }
        var missing: [NinjaGraph.EdgeID] = []
        for generatingEdge in generatingEdges.sorted() where !pathExistsBetween(generatingEdge, edge) {
            missing.append(generatingEdge)
        }
        guard !missing.isEmpty else { return }
        var ruleNames = Set<String>()
        for missingEdge in missing {
            let rule = graph.edges[Int(missingEdge)].rule
            for generator in generators {
                guard let generatedNode = generator.node, graph.nodes[Int(generatedNode)].inEdge == missingEdge else { continue }
                generatedNodes.insert(generatedNode)
                generatorRules.insert(RuleIdentity(scope: graph.edges[Int(missingEdge)].ruleScope, name: rule))
                ruleNames.insert(rule)
                printer.print("Missing dep: \(graph.nodes[Int(node)].path) uses \(generator.path) (generated by \(rule))\n")
            }
        }
        missingDepPathCount += ruleNames.count
        nodesMissingDeps.insert(node)
    }

    /// Whether `from` is among the edges that `to` depends on through its inputs (memoized).
    private mutating func pathExistsBetween(_ from: NinjaGraph.EdgeID, _ to: NinjaGraph.EdgeID) -> Bool {
        if let known = pathExists[from]?[to] { return known }
        let graph = self.graph
        var known = pathExists[from] ?? [:]
        // Post-order over the edges under `to`: an edge's answer once its inputs' edges have theirs.
        var inProgress = Set<NinjaGraph.EdgeID>()
        ToolDepthFirstWalk.walk(
            roots: [to],
            children: { edge in graph.edges[Int(edge)].inputs.compactMap { graph.nodes[Int($0)].inEdge } },
            enter: { edge in known[edge] == nil && inProgress.insert(edge).inserted },
            leave: { edge in
                known[edge] = graph.edges[Int(edge)].inputs.contains { input in
                    guard let inputEdge = graph.nodes[Int(input)].inEdge else { return false }
                    return inputEdge == from || known[inputEdge] == true
                }
            })
        pathExists[from] = known
        return known[to] ?? false
    }

    /// The summary ninja prints after the missing deps.
    private func printStatistics() {
        printer.print("Processed \(seen.count) nodes.\n")
        guard !nodesMissingDeps.isEmpty else {
            printer.print("No missing dependencies on generated files found.\n")
            return
        }
        printer.print(
            "Error: There are \(missingDepPathCount) missing dependency paths.\n"
                + "\(nodesMissingDeps.count) targets had depfile dependencies on \(generatedNodes.count) distinct generated inputs "
                + "(from \(generatorRules.count) rules)  without a non-depfile dep path to the generator.\n"
                + "There might be build flakiness if any of the targets listed above are built alone, or not late enough, "
                + "in a clean output directory.\n")
    }
}
