/// `ninja -t TOOL`: the tools CMake, Meson, GN and IDEs call (see ``NinjaToolRunner``).
enum NinjaTools {
    /// The tools that run before the manifest is read (`restat`, `urtle`): their exit code, or
    /// nil for the others.
    static func runBeforeLoading(_ tool: String, options: NinjaOptions, console: NinjaConsole) async -> Int32? {
        if tool == "urtle" {
            console.out("ninja mode of Sequencer: no turtles here\n")
            return 0
        }
        return NinjaToolRunner.runBeforeLoading(tool, options: options)
    }

    /// Runs a tool on a loaded manifest; its exit code.
    static func run(_ tool: String, session: NinjaSession) async -> Int32 {
        if tool == "browse" {
            session.console.fatal("browse tool not supported on this platform")
            return 1
        }
        var context = NinjaToolContext(graph: session.graph, options: session.options)
        context.buildDirectory = session.buildDirectory
        return NinjaToolRunner.run(tool, context: context)
    }
}
