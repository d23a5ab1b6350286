/// `ninja -t deps [TARGET...]`: what `.ninja_deps` records for the targets (by default, for
/// every output whose edge still has `deps`): the inputs, the mtime recorded, and whether the
/// output is newer than that (`STALE`) or not (`VALID`).
enum DepsTool {
    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        let graph = invocation.graph
        let depsLog = invocation.depsLog
        let printer = invocation.printer
        let paths: [String]
        if invocation.arguments.isEmpty {
            paths = depsLog.paths.filter { ToolInvocation.hasLiveDeps(path: $0, in: graph) }
        } else {
            paths = try ToolTargetLookup.targets(invocation.arguments, in: graph, depsLog: depsLog).map { graph.nodes[Int($0)].path }
        }
        for path in paths {
            guard let deps = depsLog.deps(of: path) else {
                printer.print("\(path): deps not found\n")
                continue
            }
            let stamp = ToolDisk.stamp(path, in: invocation.directory)
            if case .failed(let message) = stamp { printer.error(message) }
            let mtime = stamp.timeStamp
            let state = mtime == 0 || mtime > deps.mtime ? "STALE" : "VALID"
            var text = "\(path): #deps \(deps.inputs.count), deps mtime \(deps.mtime) (\(state))\n"
            for input in deps.inputs { text += "    \(input)\n" }
            printer.print(text + "\n")
        }
        return 0
    }
}
