/// The nodes a command line names, as ninja reads them: canonical paths; `path^` for the first
/// output of the first edge that reads `path`; no targets means the `default` statements' targets,
/// or every root (an output no edge reads).
enum TargetSelection {
    struct Failure: Error, Equatable {
        var message: String
    }

    static func resolve(_ arguments: [String], in graph: NinjaGraph) throws(Failure) -> [NinjaGraph.NodeID] {
        guard !arguments.isEmpty else { return try defaults(of: graph) }
        var nodes: [NinjaGraph.NodeID] = []
        for argument in arguments { nodes.append(try node(named: argument, in: graph)) }
        return nodes
    }

    static func defaults(of graph: NinjaGraph) throws(Failure) -> [NinjaGraph.NodeID] {
        if !graph.defaults.isEmpty { return graph.defaults }
        let roots = graph.roots
        if roots.isEmpty, !graph.edges.isEmpty { throw Failure(message: "could not determine root nodes of build graph") }
        return roots
    }

    static func node(named argument: String, in graph: NinjaGraph) throws(Failure) -> NinjaGraph.NodeID {
        guard !argument.isEmpty else { throw Failure(message: "empty path") }
        var path: String
        do {
            path = try CanonicalPath.canonicalize(argument)
        } catch {
            throw Failure(message: error.message)
        }
        let firstDependent = path.hasSuffix("^")
        if firstDependent { path.removeLast() }
        guard let node = graph.node(at: path) else {
            var message = "unknown target '\(path)'"
            if path == "clean" {
                message += ", did you mean 'ninja -t clean'?"
            } else if path == "help" {
                message += ", did you mean 'ninja -h'?"
            } else if let suggestion = Spelling.closest(to: path, among: NinjaHashTableOrder.ordered(graph.nodes.map(\.path))) {
                message += ", did you mean '\(suggestion)'?"
            }
            throw Failure(message: message)
        }
        guard firstDependent else { return node }
        guard let edge = graph.nodes[Int(node)].outEdges.first, let output = graph.edges[Int(edge)].outputs.first else {
            throw Failure(message: "'\(path)' has no out edge")
        }
        return output
    }
}
