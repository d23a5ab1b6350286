/// Evaluating an edge's variables, as ninja does when it runs, logs or prints an edge.
///
/// Every evaluation can fail only with a cycle among the rule's variables, which ninja treats
/// as fatal (`ManifestError.isFatal`).
extension NinjaGraph {
    /// Variable `name` for `edge`: `$in`, `$in_newline` and `$out` (explicit paths only, quoted
    /// for `sh` with `.shell`), then the edge's variables, its rule's (expanded for the edge),
    /// then its scopes' (see `EdgeEnvironmentLookup` for ninja's order and quirks).
    public func evaluate(_ name: String, of edge: EdgeID, escaping: PathEscaping = .shell) throws(ManifestError) -> String {
        var state = EdgeEnvironmentLookup(escaping: escaping)
        return try lookupVariable(name, edge: edges[Int(edge)], state: &state)
    }

    /// The command line; with `includingResponseFile`, followed by `;rspfile=` and the
    /// response file's content when it has some (what ninja hashes into `.ninja_log`).
    public func command(of edge: EdgeID, includingResponseFile: Bool = false) throws(ManifestError) -> String {
        var command = try evaluate("command", of: edge)
        if includingResponseFile {
            let content = try evaluate("rspfile_content", of: edge)
            if !content.isEmpty { command += ";rspfile=" + content }
        }
        return command
    }

    /// `description` (empty when there is none; ninja then prints the command).
    public func description(of edge: EdgeID) throws(ManifestError) -> String {
        try evaluate("description", of: edge)
    }

    /// The depfile's path, unquoted.
    public func depfile(of edge: EdgeID) throws(ManifestError) -> String {
        try evaluate("depfile", of: edge, escaping: .none)
    }

    /// `deps`: `gcc`, `msvc`, or empty.
    public func deps(of edge: EdgeID) throws(ManifestError) -> String {
        try evaluate("deps", of: edge)
    }

    /// `msvc_deps_prefix`: what starts the lines of `/showIncludes` output (with `deps = msvc`).
    public func msvcDepsPrefix(of edge: EdgeID) throws(ManifestError) -> String {
        try evaluate("msvc_deps_prefix", of: edge)
    }

    /// The `dyndep` binding's path, unquoted (the parser has already resolved it to
    /// `Edge.dyndep`).
    public func dyndep(of edge: EdgeID) throws(ManifestError) -> String {
        try evaluate("dyndep", of: edge, escaping: .none)
    }

    /// Whether `restat` is set to anything non-empty.
    public func restat(of edge: EdgeID) throws(ManifestError) -> Bool {
        try !evaluate("restat", of: edge).isEmpty
    }

    /// Whether `generator` is set to anything non-empty.
    public func generator(of edge: EdgeID) throws(ManifestError) -> Bool {
        try !evaluate("generator", of: edge).isEmpty
    }

    /// The response file's path, unquoted.
    public func rspfile(of edge: EdgeID) throws(ManifestError) -> String {
        try evaluate("rspfile", of: edge, escaping: .none)
    }

    /// The response file's content, with `$in`/`$out` quoted for `sh` as ninja writes it.
    public func rspfileContent(of edge: EdgeID, escaping: PathEscaping = .shell) throws(ManifestError) -> String {
        try evaluate("rspfile_content", of: edge, escaping: escaping)
    }

    /// The `pool` binding as evaluated now (the parser resolved it into `Edge.pool` with the
    /// edge's paths not yet known, as ninja does).
    public func pool(of edge: EdgeID) throws(ManifestError) -> String {
        try evaluate("pool", of: edge)
    }
}

extension EvalString {
    /// The string with each variable written `${name}` (ninja's `Unparse`, for `-t rules -d`).
    public var unparsed: String {
        var result = ""
        for piece in pieces {
            switch piece {
            case .text(let text): result += text
            case .variable(let name): result += "${" + name + "}"
            }
        }
        return result
    }
}
