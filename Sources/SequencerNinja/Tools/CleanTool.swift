/// `ninja -t clean [-g] [-r] [TARGETS-OR-RULES...]`: removes what the edges build, with their
/// depfiles and response files: every edge's outputs but the phony ones' and (without `-g`)
/// the generators'; or those of the targets and what builds them; or, with `-r`, those of the
/// edges of the rules named.
enum CleanTool {
    /// ninja's usage text, printed on standard output for `-h` or an unknown flag.
    static let usage = """
        usage: ninja -t clean [options] [targets]

        options:
          -g     also clean files marked as ninja generator output
          -r     interpret targets as a list of rules to clean instead

        """

    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        guard let (flags, operands) = invocation.flags(ToolArgumentParser(flags: ["h", "g", "r"]), usage: usage) else {
            return 1
        }
        let generators = flags.contains("g")
        let byRule = flags.contains("r")
        if byRule && operands.isEmpty { throw ManifestError("expected a rule to clean") }
        var cleaner = Cleaner(printer: invocation.printer, options: invocation.options, directory: invocation.directory)
        cleaner.printHeader()
        loadDyndeps(&invocation)
        let graph = invocation.graph
        if operands.isEmpty {
            try cleanAll(graph, generators: generators, with: &cleaner)
        } else if byRule {
            try cleanRules(operands, graph, with: &cleaner)
        } else {
            try cleanTargets(operands, graph, with: &cleaner)
        }
        cleaner.printFooter()
        return cleaner.status
    }

    /// Loads every dyndep file there is, so that what they add is cleaned too; failures are
    /// ignored (ninja cleans what it knows of).
    static func loadDyndeps(_ invocation: inout ToolInvocation) {
        for edge in invocation.graph.edges.indices {
            guard let dyndep = invocation.graph.edges[edge].dyndep else { continue }
            _ = try? invocation.graph.load(dyndep: dyndep, files: invocation.manifestFiles)
        }
    }

    /// Cleans every edge but the phony ones and, unless `generators`, those with `generator`.
    static func cleanAll(_ graph: NinjaGraph, generators: Bool, with cleaner: inout Cleaner) throws(ManifestError) {
        for edgeID in graph.edges.indices {
            let edge = NinjaGraph.EdgeID(edgeID)
            if graph.edges[edgeID].isPhony { continue }
            if !generators, try graph.generator(of: edge) { continue }
            for output in graph.edges[edgeID].outputs { cleaner.remove(graph.nodes[Int(output)].path) }
            try cleaner.removeFiles(of: edge, in: graph)
        }
    }

    /// Cleans each target and what builds it; an unknown target is an error, and the others
    /// are still cleaned.
    static func cleanTargets(_ targets: [String], _ graph: NinjaGraph, with cleaner: inout Cleaner) throws(ManifestError) {
        var cleaned = Set<NinjaGraph.NodeID>()
        for target in targets {
            guard !target.isEmpty else {
                cleaner.fail("failed to canonicalize '': empty path")
                continue
            }
            let path = try CanonicalPath.canonicalize(target)
            guard let node = graph.node(at: path) else {
                cleaner.fail("unknown target '\(path)'")
                continue
            }
            cleaner.note("Target \(path)")
            try clean(node, graph, cleaned: &cleaned, with: &cleaner)
        }
    }

    /// Removes the target if an edge other than a phony one builds it, and the same for its
    /// edge's inputs not cleaned yet, depth first (ninja's `DoCleanTarget`).
    private static func clean(
        _ target: NinjaGraph.NodeID, _ graph: NinjaGraph, cleaned: inout Set<NinjaGraph.NodeID>, with cleaner: inout Cleaner
    ) throws(ManifestError) {
        var failure: ManifestError?
        var isTarget = true
        // The nodes being cleaned below, to stop on a cycle (where ninja would recurse forever).
        var onPath = Set<NinjaGraph.NodeID>()
        ToolDepthFirstWalk.walk(
            roots: [target],
            children: { node in graph.nodes[Int(node)].inEdge.map { graph.edges[Int($0)].inputs } ?? [] },
            enter: { node in
                if failure != nil { return false }
                if !isTarget && (cleaned.contains(node) || onPath.contains(node)) { return false }
                isTarget = false
                onPath.insert(node)
                guard let edge = graph.nodes[Int(node)].inEdge, !graph.edges[Int(edge)].isPhony else { return true }
                cleaner.remove(graph.nodes[Int(node)].path)
                do throws(ManifestError) {
                    try cleaner.removeFiles(of: edge, in: graph)
                } catch {
                    failure = error
                    return false
                }
                return true
            },
            leave: { node in
                onPath.remove(node)
                cleaned.insert(node)
            })
        if let failure { throw failure }
    }

    /// Cleans the outputs of the edges of each rule (of the top-level file's rules); an unknown
    /// rule is an error, and the others are still cleaned.
    static func cleanRules(_ rules: [String], _ graph: NinjaGraph, with cleaner: inout Cleaner) throws(ManifestError) {
        let known = graph.scopes.first?.rules ?? [:]
        for rule in rules {
            guard known[rule] != nil else {
                cleaner.fail("unknown rule '\(rule)'")
                continue
            }
            cleaner.note("Rule \(rule)")
            for edgeID in graph.edges.indices where graph.edges[edgeID].rule == rule {
                for output in graph.edges[edgeID].outputs {
                    cleaner.remove(graph.nodes[Int(output)].path)
                    try cleaner.removeFiles(of: NinjaGraph.EdgeID(edgeID), in: graph)
                }
            }
        }
    }
}
