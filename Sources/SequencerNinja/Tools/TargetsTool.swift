/// `ninja -t targets [depth N | rule [NAME] | all]`: the targets, as a tree from the roots (to
/// depth N, 1 by default, 0 for all), by rule, or all of them.
enum TargetsTool {
    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        let graph = invocation.graph
        let printer = invocation.printer
        let arguments = invocation.arguments
        var depth: Int32 = 1
        if let mode = arguments.first {
            switch mode {
            case "rule":
                let rule = arguments.count > 1 ? arguments[1] : ""
                if rule.isEmpty {
                    printSources(graph, to: printer)
                } else {
                    printOutputs(ofRule: rule, graph, to: printer)
                }
                return 0
            case "depth":
                if arguments.count > 1 { depth = CInteger.atoi(arguments[1]) }
            case "all":
                printAll(graph, to: printer)
                return 0
            default:
                if let suggestion = Spelling.closest(to: mode, among: ["rule", "depth", "all"]) {
                    throw ManifestError("unknown target tool mode '\(mode)', did you mean '\(suggestion)'?")
                }
                throw ManifestError("unknown target tool mode '\(mode)'")
            }
        }
        let roots = try ToolTargetLookup.rootNodes(of: graph)
        printTree(roots, depth: depth, graph, to: printer)
        return 0
    }

    /// Each node as `path: rule` (or `path` for a source), indented by two spaces a level,
    /// followed by its edge's inputs while `depth` allows (0 or less: no limit).
    static func printTree(_ roots: [NinjaGraph.NodeID], depth: Int32, _ graph: NinjaGraph, to printer: ToolPrinter) {
        /// A node to list, with the depth left below it and its indentation.
        struct Entry {
            var node: NinjaGraph.NodeID
            var depth: Int32
            var indent: Int
        }
        // The nodes being listed below, to stop on a cycle (where ninja would recurse forever).
        var onPath: [NinjaGraph.NodeID] = []
        ToolDepthFirstWalk.walk(
            roots: roots.map { Entry(node: $0, depth: depth, indent: 0) },
            children: { entry in
                guard let edge = graph.nodes[Int(entry.node)].inEdge, entry.depth > 1 || entry.depth <= 0 else { return [] }
                if entry.depth <= 0 && onPath.dropLast().contains(entry.node) { return [] }
                return graph.edges[Int(edge)].inputs.map { Entry(node: $0, depth: entry.depth &- 1, indent: entry.indent + 1) }
            },
            enter: { entry in
                let node = graph.nodes[Int(entry.node)]
                var line = String(repeating: "  ", count: entry.indent) + node.path
                if let edge = node.inEdge { line += ": " + graph.edges[Int(edge)].rule }
                printer.print(line + "\n")
                onPath.append(entry.node)
                return true
            },
            leave: { _ in onPath.removeLast() })
    }

    /// `rule` with no name: every input that no edge writes, once for each edge that reads it.
    static func printSources(_ graph: NinjaGraph, to printer: ToolPrinter) {
        for edge in graph.edges {
            for input in edge.inputs where graph.nodes[Int(input)].inEdge == nil {
                printer.print(graph.nodes[Int(input)].path + "\n")
            }
        }
    }

    /// `rule NAME`: the outputs of the rule's edges, sorted, each once.
    static func printOutputs(ofRule rule: String, _ graph: NinjaGraph, to printer: ToolPrinter) {
        var outputs = Set<String>()
        for edge in graph.edges where edge.rule == rule {
            for output in edge.outputs { outputs.insert(graph.nodes[Int(output)].path) }
        }
        for output in ToolSorting.sortedAsBytes(outputs) { printer.print(output + "\n") }
    }

    /// `all`: every output as `path: rule`, in the order of the edges.
    static func printAll(_ graph: NinjaGraph, to printer: ToolPrinter) {
        for edge in graph.edges {
            for output in edge.outputs { printer.print(graph.nodes[Int(output)].path + ": " + edge.rule + "\n") }
        }
    }
}
