/// `ninja -t commands [-s] [TARGET...]`: the commands that build the targets, each once, an
/// edge's inputs' commands before its own (with `-s`, only the targets' own commands).
enum CommandsTool {
    /// ninja's usage text, printed on standard output for `-h` or an unknown flag.
    static let usage = """
        usage: ninja -t commands [options] [targets]

        options:
          -s     only print the final command to build [target], not the whole chain

        """

    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        guard let (flags, operands) = invocation.flags(ToolArgumentParser(flags: ["h", "s"]), usage: usage) else { return 1 }
        let singleCommands = flags.contains("s")
        let graph = invocation.graph
        let printer = invocation.printer
        let targets = try ToolTargetLookup.targets(operands, in: graph)
        var seen = Set<NinjaGraph.EdgeID>()
        var failure: ManifestError?
        ToolDepthFirstWalk.walk(
            roots: targets.compactMap { graph.nodes[Int($0)].inEdge },
            children: { edge in
                singleCommands ? [] : graph.edges[Int(edge)].inputs.compactMap { graph.nodes[Int($0)].inEdge }
            },
            enter: { edge in failure == nil && seen.insert(edge).inserted },
            leave: { edge in
                guard failure == nil, !graph.edges[Int(edge)].isPhony else { return }
                do throws(ManifestError) {
                    printer.print(try graph.command(of: edge) + "\n")
                } catch {
                    failure = error
                }
            })
        if let failure { throw failure }
        return 0
    }
}
