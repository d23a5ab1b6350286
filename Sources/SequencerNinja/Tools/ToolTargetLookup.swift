/// The nodes a tool's operands name, as ninja's `CollectTarget` finds them: canonical paths,
/// `path^` for the first output of the first edge that reads `path` (or, when none does, of
/// the first output whose deps log entry lists it), and no operands for the `default`
/// targets or else every root.
enum ToolTargetLookup {
    /// The nodes of `arguments`, or the default ones when there are none.
    ///
    /// - Throws: The first operand's failure (`unknown target 'x'`, …), or ninja's failure to
    ///   find root nodes.
    static func targets(
        _ arguments: [String], in graph: NinjaGraph, depsLog: NinjaDepsLog? = nil
    ) throws(ManifestError) -> [NinjaGraph.NodeID] {
        guard !arguments.isEmpty else { return try defaultTargets(of: graph) }
        var nodes: [NinjaGraph.NodeID] = []
        for argument in arguments { nodes.append(try target(argument, in: graph, depsLog: depsLog)) }
        return nodes
    }

    /// The `default` statements' targets, or every root when there are none.
    static func defaultTargets(of graph: NinjaGraph) throws(ManifestError) -> [NinjaGraph.NodeID] {
        graph.defaults.isEmpty ? try rootNodes(of: graph) : graph.defaults
    }

    /// The outputs no edge reads, in the order of the edges.
    ///
    /// - Throws: When the manifest has edges but no such output (every output is read: a cycle).
    static func rootNodes(of graph: NinjaGraph) throws(ManifestError) -> [NinjaGraph.NodeID] {
        let roots = graph.roots
        if roots.isEmpty && !graph.edges.isEmpty {
            throw ManifestError("could not determine root nodes of build graph")
        }
        return roots
    }

    /// The node one operand names.
    static func target(
        _ argument: String, in graph: NinjaGraph, depsLog: NinjaDepsLog? = nil
    ) throws(ManifestError) -> NinjaGraph.NodeID {
        guard !argument.isEmpty else { throw ManifestError("empty path") }
        var path = try CanonicalPath.canonicalize(argument)
        let firstDependent = path.hasSuffix("^")
        if firstDependent { path.removeLast() }
        guard let node = graph.node(at: path) else {
            throw ManifestError(unknownTargetMessage(path, in: graph))
        }
        guard firstDependent else { return node }
        guard let edge = graph.nodes[Int(node)].outEdges.first else {
            guard let dependent = depsLog?.firstOutput(dependingOn: path), let dependentNode = graph.node(at: dependent) else {
                throw ManifestError("'\(path)' has no out edge")
            }
            return dependentNode
        }
        guard let output = graph.edges[Int(edge)].outputs.first else {
            throw ManifestError("edge has no outputs", isFatal: true)
        }
        return output
    }

    /// `unknown target 'PATH'`, with ninja's hint: the closest node, the first in the order of
    /// ninja's table of nodes among the equally close.
    static func unknownTargetMessage(_ path: String, in graph: NinjaGraph) -> String {
        var message = "unknown target '\(path)'"
        if path == "clean" {
            message += ", did you mean 'ninja -t clean'?"
        } else if path == "help" {
            message += ", did you mean 'ninja -h'?"
        } else if let suggestion = Spelling.closest(to: path, among: NinjaHashTableOrder.ordered(graph.nodes.map(\.path))) {
            message += ", did you mean '\(suggestion)'?"
        }
        return message
    }
}
