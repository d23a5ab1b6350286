/// `ninja -t recompact`: rewrites `.ninja_log` without the entries of outputs that are gone
/// (no edge writes them and they are not on disk), and `.ninja_deps` with only the latest
/// deps of outputs whose edge still has `deps`.
enum RecompactTool {
    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        invocation.openLogs(recompactOnly: true) ? 0 : 1
    }
}
