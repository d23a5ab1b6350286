/// `ninja -t query TARGET...`: for each target, the edge that writes it (its rule and inputs,
/// `| ` before implicit and `|| ` before order-only ones, and its validations), the outputs
/// of the edges that read it, and of those it validates.
enum QueryTool {
    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        let printer = invocation.printer
        guard !invocation.arguments.isEmpty else {
            throw ManifestError("expected a target to query")
        }
        for argument in invocation.arguments {
            let node = try ToolTargetLookup.target(argument, in: invocation.graph, depsLog: invocation.depsLog)
            printer.print(invocation.graph.nodes[Int(node)].path + ":\n")
            if let edgeID = invocation.graph.nodes[Int(node)].inEdge {
                invocation.loadPendingDyndep(of: edgeID)
                let graph = invocation.graph
                let edge = graph.edges[Int(edgeID)]
                printer.print("  input: " + edge.rule + "\n")
                let implicitStart = edge.inputs.count - edge.implicitInputs - edge.orderOnlyInputs
                let orderOnlyStart = edge.inputs.count - edge.orderOnlyInputs
                for (index, input) in edge.inputs.enumerated() {
                    let label = index >= orderOnlyStart ? "|| " : index >= implicitStart ? "| " : ""
                    printer.print("    " + label + graph.nodes[Int(input)].path + "\n")
                }
                if !edge.validations.isEmpty {
                    printer.print("  validations:\n")
                    for validation in edge.validations { printer.print("    " + graph.nodes[Int(validation)].path + "\n") }
                }
            }
            let graph = invocation.graph
            printer.print("  outputs:\n")
            for edge in graph.nodes[Int(node)].outEdges {
                for output in graph.edges[Int(edge)].outputs { printer.print("    " + graph.nodes[Int(output)].path + "\n") }
            }
            let validated = graph.nodes[Int(node)].validationOutEdges
            if !validated.isEmpty {
                printer.print("  validation for:\n")
                for edge in validated {
                    for output in graph.edges[Int(edge)].outputs { printer.print("    " + graph.nodes[Int(output)].path + "\n") }
                }
            }
        }
        return 0
    }
}
