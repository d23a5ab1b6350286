/// `ninja -t cleandead`: removes the outputs `.ninja_log` names that the manifest no longer
/// has (no edge reads or writes them).
enum CleanDeadTool {
    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        var cleaner = Cleaner(printer: invocation.printer, options: invocation.options, directory: invocation.directory)
        cleaner.printHeader()
        let graph = invocation.graph
        for entry in invocation.buildLog.entriesInNinjaOrder {
            if let node = graph.node(at: entry.output) {
                if graph.nodes[Int(node)].inEdge != nil || !graph.nodes[Int(node)].outEdges.isEmpty { continue }
            }
            cleaner.remove(entry.output)
        }
        cleaner.printFooter()
        return cleaner.status
    }
}
