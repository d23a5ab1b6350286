/// `ninja -t graph [TARGET...]`: the graph under the targets in graphviz's dot language, as
/// ninja prints it.
///
/// ninja names each node and edge by its address in memory (`"0x55d5c8a3e2b0"`), which differs
/// from run to run; here they are made-up addresses of the same look, one per node and edge.
enum GraphTool {
    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        let targets = try ToolTargetLookup.targets(invocation.arguments, in: invocation.graph)
        let printer = invocation.printer
        printer.print("digraph ninja {\nrankdir=\"LR\"\nnode [fontsize=10, shape=box, height=0.25]\nedge [fontsize=10]\n")
        var visitedNodes = Set<NinjaGraph.NodeID>()
        var visitedEdges = Set<NinjaGraph.EdgeID>()
        // Taken out of the invocation while the walk adds dyndep files' nodes and edges to it.
        var graph = invocation.graph
        invocation.graph = NinjaGraph()
        let files = invocation.manifestFiles
        ToolDepthFirstWalk.walk(
            roots: targets,
            children: { node in graph.nodes[Int(node)].inEdge.map { graph.edges[Int($0)].inputs } ?? [] },
            enter: { node in
                guard visitedNodes.insert(node).inserted else { return false }
                let path = String(graph.nodes[Int(node)].path.map { $0 == "\\" ? "/" : $0 })
                printer.print("\"\(address(ofNode: node))\" [label=\"\(path)\"]\n")
                guard let edgeID = graph.nodes[Int(node)].inEdge, visitedEdges.insert(edgeID).inserted else {
                    return false
                }
                ToolInvocation.loadPendingDyndep(of: edgeID, in: &graph, files: files, printer: printer)
                printEdge(edgeID, graph, to: printer)
                return true
            })
        invocation.graph = graph
        printer.print("}\n")
        return 0
    }

    /// An edge with one input and one output as a labelled arrow; any other as an ellipse with
    /// arrows to its outputs and lines from its inputs (dotted for order-only ones).
    private static func printEdge(_ edgeID: NinjaGraph.EdgeID, _ graph: NinjaGraph, to printer: ToolPrinter) {
        let edge = graph.edges[Int(edgeID)]
        if edge.inputs.count == 1 && edge.outputs.count == 1 {
            printer.print("\"\(address(ofNode: edge.inputs[0]))\" -> \"\(address(ofNode: edge.outputs[0]))\" [label=\" \(edge.rule)\"]\n")
            return
        }
        let edgeAddress = address(ofEdge: edgeID)
        printer.print("\"\(edgeAddress)\" [label=\"\(edge.rule)\", shape=ellipse]\n")
        for output in edge.outputs {
            printer.print("\"\(edgeAddress)\" -> \"\(address(ofNode: output))\"\n")
        }
        let orderOnlyStart = edge.inputs.count - edge.orderOnlyInputs
        for (index, input) in edge.inputs.enumerated() {
            let style = index >= orderOnlyStart ? " style=dotted" : ""
            printer.print("\"\(address(ofNode: input))\" -> \"\(edgeAddress)\" [arrowhead=none\(style)]\n")
        }
    }

    /// A node's made-up address.
    static func address(ofNode node: NinjaGraph.NodeID) -> String {
        "0x" + String(0x5600_0000_0000 + UInt64(node) * 0x50, radix: 16)
    }

    /// An edge's made-up address (apart from every node's).
    static func address(ofEdge edge: NinjaGraph.EdgeID) -> String {
        "0x" + String(0x5700_0000_0000 + UInt64(edge) * 0x110, radix: 16)
    }
}
