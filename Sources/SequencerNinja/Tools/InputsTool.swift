/// `ninja -t inputs [TARGET...]` (ninja 1.11): every input, explicit, implicit or order-only,
/// of the edges that build the targets, quoted for the shell, sorted and each once.
enum InputsTool {
    /// ninja's usage text, printed on standard output for `-h` or an unknown flag.
    static let usage = """
        Usage '-t inputs [options] [targets]

        List all inputs used for a set of targets. Note that this includes
        explicit, implicit and order-only inputs, but not validation ones.

        Options:
          -h, --help   Print this message.

        """

    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        let parser = ToolArgumentParser(flags: ["h"], longFlags: ["help": "h"])
        guard let (_, operands) = invocation.flags(parser, usage: usage) else { return 1 }
        let graph = invocation.graph
        let targets = try ToolTargetLookup.targets(operands, in: graph)
        var seen = Set<NinjaGraph.EdgeID>()
        var inputs: [String] = []
        ToolDepthFirstWalk.walk(
            roots: targets.compactMap { graph.nodes[Int($0)].inEdge },
            children: { edge in graph.edges[Int(edge)].inputs.compactMap { graph.nodes[Int($0)].inEdge } },
            enter: { edge in seen.insert(edge).inserted },
            leave: { edge in
                guard !graph.edges[Int(edge)].isPhony else { return }
                for input in graph.edges[Int(edge)].inputs {
                    var quoted = ""
                    ShellEscape.append(graph.nodes[Int(input)].path, to: &quoted)
                    inputs.append(quoted)
                }
            })
        var previous: String?
        for input in ToolSorting.sortedAsBytes(inputs) where input != previous {
            invocation.printer.print(input + "\n")
            previous = input
        }
        return 0
    }
}
