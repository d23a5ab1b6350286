/// `ninja -t compdb [-x] [RULE...]`: a JSON compilation database of every edge with inputs
/// (those of the rules named, when some are), as ninja 1.11 prints it; and ninja 1.13's
/// `ninja -t compdb-targets [-x] TARGET...`: the same for the edges that build the targets.
enum CompilationDatabaseTool {
    /// ninja's usage text, printed on standard output for `-h` or an unknown flag.
    static let usage = """
        usage: ninja -t compdb [options] [rules]

        options:
          -x     expand @rspfile style response file invocations

        """

    /// ninja 1.13 prints `compdb`'s name in `compdb-targets`' usage too.
    static let targetsUsage = """
        usage: ninja -t compdb [-hx] target [targets]

        options:
          -h     display this help message
          -x     expand @rspfile style response file invocations

        """

    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        guard let (flags, rules) = invocation.flags(ToolArgumentParser(flags: ["h", "x"]), usage: usage) else { return 1 }
        let expansion: ResponseFileExpansion = flags.contains("x") ? .ninja111 : .none
        let directory: String
        switch workingDirectory(invocation) {
        case .success(let path): directory = path
        case .failure(let error): throw ManifestError("cannot determine working directory: \(error.reason)")
        }
        let graph = invocation.graph
        let printer = invocation.printer
        var first = true
        printer.print("[")
        for edgeID in graph.edges.indices {
            let edge = graph.edges[edgeID]
            guard !edge.inputs.isEmpty else { continue }
            // Once for each time the edge's rule is named.
            let times = rules.isEmpty ? 1 : rules.count(where: { $0 == edge.rule })
            for _ in 0..<times {
                if !first { printer.print(",") }
                printer.print(try entry(of: NinjaGraph.EdgeID(edgeID), graph, directory: directory, expansion: expansion))
                first = false
            }
        }
        printer.print("\n]\n")
        return 0
    }

    /// Runs `compdb-targets`; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func runForTargets(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        let parser = ToolArgumentParser(flags: ["h", "x"])
        guard let (flags, targets) = invocation.flags(parser, usage: targetsUsage) else { return 1 }
        guard !targets.isEmpty else {
            invocation.printer.error("compdb-targets expects the name of at least one target")
            invocation.printer.print(targetsUsage)
            return 1
        }
        let expansion: ResponseFileExpansion = flags.contains("x") ? .ninja113 : .none
        let graph = invocation.graph
        var visitedNodes = Set<NinjaGraph.NodeID>()
        var visitedEdges = Set<NinjaGraph.EdgeID>()
        var edges: [NinjaGraph.EdgeID] = []
        for target in targets {
            let node: NinjaGraph.NodeID
            do {
                node = try ToolTargetLookup.target(target, in: graph)
            } catch {
                throw ManifestError(error.message, isFatal: true)
            }
            guard graph.nodes[Int(node)].inEdge != nil else {
                throw ManifestError(
                    "'\(graph.nodes[Int(node)].path)' is not a target (i.e. it is not an output of any `build` statement)",
                    isFatal: true)
            }
            ToolDepthFirstWalk.walk(
                roots: [node],
                children: { node in graph.nodes[Int(node)].inEdge.map { graph.edges[Int($0)].inputs } ?? [] },
                enter: { node in
                    guard visitedNodes.insert(node).inserted, let edge = graph.nodes[Int(node)].inEdge else { return false }
                    return visitedEdges.insert(edge).inserted
                },
                leave: { node in
                    if let edge = graph.nodes[Int(node)].inEdge, !graph.edges[Int(edge)].isPhony { edges.append(edge) }
                })
        }
        let directory: String
        switch workingDirectory(invocation) {
        case .success(let path): directory = path
        case .failure(let error): throw ManifestError("cannot determine working directory: \(error.reason)", isFatal: true)
        }
        let printer = invocation.printer
        printer.print("[")
        var first = true
        for edge in edges where !graph.edges[Int(edge)].inputs.isEmpty {
            if !first { printer.print(",") }
            printer.print(try entry(of: edge, graph, directory: directory, expansion: expansion))
            first = false
        }
        printer.print("\n]\n")
        return 0
    }

    /// The directory the entries name: the invocation's, or the current one.
    private static func workingDirectory(_ invocation: ToolInvocation) -> Result<String, ToolSystemError> {
        if let directory = invocation.directory { return .success(directory) }
        return ToolDisk.currentDirectory()
    }

    /// One object of the array, with the newline before it.
    static func entry(
        of edge: NinjaGraph.EdgeID, _ graph: NinjaGraph, directory: String, expansion: ResponseFileExpansion
    ) throws(ManifestError) -> String {
        let command = try expansion.command(of: edge, graph)
        let inputs = graph.edges[Int(edge)].inputs
        let outputs = graph.edges[Int(edge)].outputs
        let file = inputs.first.map { graph.nodes[Int($0)].path } ?? ""
        let output = outputs.first.map { graph.nodes[Int($0)].path } ?? ""
        return "\n  {\n    \"directory\": \"" + JSONText.escaped(directory)
            + "\",\n    \"command\": \"" + JSONText.escaped(command)
            + "\",\n    \"file\": \"" + JSONText.escaped(file)
            + "\",\n    \"output\": \"" + JSONText.escaped(output)
            + "\"\n  }"
    }
}
