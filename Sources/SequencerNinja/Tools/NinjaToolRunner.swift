/// ninja 1.11's `-t` tools (and ninja 1.13's `compdb-targets`), as CMake, Meson, GN and IDEs
/// call them: their output, messages and exit codes.
///
/// `restat` runs before the manifest is read (`runBeforeLoading`); the others on the loaded
/// manifest (`run`). `deps`, `missingdeps`, `query` and `cleandead` first read the logs, as
/// ninja does, creating the build directory (unless `-n`) and recompacting a log that needs
/// it.
public enum NinjaToolRunner {
    /// The tools ninja runs on the loaded manifest.
    public static let toolsAfterLoading: Set<String> = [
        "clean", "cleandead", "commands", "compdb", "compdb-targets", "deps", "graph", "inputs", "missingdeps",
        "query", "recompact", "rules", "targets",
    ]

    /// Runs `tool` if it is one ninja runs before reading the manifest (`restat`); its exit
    /// code, or nil for the other tools.
    ///
    /// - Parameter directory: The directory ninja runs in; nil for the current one.
    public static func runBeforeLoading(
        _ tool: String, options: NinjaOptions, output: NinjaToolOutput = .processStreams, directory: String? = nil
    ) -> Int32? {
        guard tool == "restat" else { return nil }
        var context = NinjaToolContext(graph: NinjaGraph(), options: options, output: output, directory: directory)
        context.buildDirectory = ""
        return run(tool, context: context)
    }

    /// Runs `tool` on `context.graph`; its exit code (1 for an unknown tool).
    public static func run(_ tool: String, context: NinjaToolContext) -> Int32 {
        let printer = ToolPrinter(output: context.output)
        defer { printer.flush() }
        var invocation = ToolInvocation(context: context, printer: printer)
        do {
            switch tool {
            case "clean": return try CleanTool.run(&invocation)
            case "commands": return try CommandsTool.run(&invocation)
            case "compdb": return try CompilationDatabaseTool.run(&invocation)
            case "compdb-targets": return try CompilationDatabaseTool.runForTargets(&invocation)
            case "graph": return try GraphTool.run(&invocation)
            case "inputs": return try InputsTool.run(&invocation)
            case "recompact": return try RecompactTool.run(&invocation)
            case "restat": return try RestatTool.run(&invocation)
            case "rules": return try RulesTool.run(&invocation)
            case "targets": return try TargetsTool.run(&invocation)
            case "cleandead", "deps", "missingdeps", "query":
                guard invocation.openLogs() else { return 1 }
                switch tool {
                case "cleandead": return try CleanDeadTool.run(&invocation)
                case "deps": return try DepsTool.run(&invocation)
                case "missingdeps": return try MissingDepsTool.run(&invocation)
                default: return try QueryTool.run(&invocation)
                }
            default:
                printer.fatal("unknown tool '\(tool)'")
                return 1
            }
        } catch {
            printer.report(error)
            return 1
        }
    }
}
