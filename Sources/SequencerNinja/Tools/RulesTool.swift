/// `ninja -t rules [-d]`: the top-level file's rules by name (`phony` among them), with
/// `-d` each one's `description` as written.
enum RulesTool {
    /// ninja's usage text, printed on standard output for `-h` or an unknown flag.
    static let usage = """
        usage: ninja -t rules [options]

        options:
          -d     also print the description of the rule
          -h     print this message

        """

    /// Runs the tool; its exit code.
    ///
    /// - Throws: A failure ninja prints as `ninja: error: ` (or `ninja: fatal: `), exiting with 1.
    static func run(_ invocation: inout ToolInvocation) throws(ManifestError) -> Int32 {
        guard let (flags, _) = invocation.flags(ToolArgumentParser(flags: ["h", "d"]), usage: usage) else { return 1 }
        let withDescriptions = flags.contains("d")
        let rules = invocation.graph.scopes.first?.rules ?? [:]
        for name in ToolSorting.sortedAsBytes(rules.keys) {
            var line = name
            if withDescriptions, let description = rules[name]?.bindings["description"] {
                line += ": " + description.unparsed
            }
            invocation.printer.print(line + "\n")
        }
        return 0
    }
}
