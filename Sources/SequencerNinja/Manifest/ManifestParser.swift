/// Reads a ninja manifest (`build.ninja` and what it includes) into a `NinjaGraph`, as ninja
/// 1.11.1 reads it: the same statements, scopes, path canonicalisation, diagnostics and
/// error messages.
///
/// ```swift
/// let graph = try ManifestParser.parse(file: "build.ninja", files: DiskManifestFiles()) { warning in
///     print("ninja: warning: \(warning)")
/// }
/// ```
public struct ManifestParser {
    /// ninja's `-w` flags that change how a manifest is read, and the version it compares
    /// `ninja_required_version` with.
    public struct Options: Sendable {
        /// What to do about an output that a second build statement names (`-w dupbuild=`).
        public enum DuplicateOutputs: Sendable {
            /// Warn, and leave the output to the first statement (`-w dupbuild=warn`).
            case warn
            /// Fail with `multiple rules generate X` (ninja's default).
            case error
        }

        /// What to do about `build a: phony a` (`-w phonycycle=`).
        public enum PhonyCycles: Sendable {
            /// Warn and drop the self-reference, which CMake 2.8.12 and 3.0 wrote (ninja's
            /// default).
            case warn
            /// Keep it: the build reports a dependency cycle (`-w phonycycle=err`).
            case error
        }

        /// `-w dupbuild=`.
        public var duplicateOutputs: DuplicateOutputs
        /// `-w phonycycle=`.
        public var phonyCycles: PhonyCycles
        /// The version `ninja_required_version` is checked against.
        public var ninjaVersion: String

        /// ninja's defaults: `-w dupbuild=err`, `-w phonycycle=warn`, version 1.11.1.
        public init(duplicateOutputs: DuplicateOutputs = .error, phonyCycles: PhonyCycles = .warn, ninjaVersion: String = "1.11.1") {
            self.duplicateOutputs = duplicateOutputs
            self.phonyCycles = phonyCycles
            self.ninjaVersion = ninjaVersion
        }
    }

    /// How deep `include` and `subninja` may nest (ninja has no limit, and crashes on a file that
    /// includes itself).
    public static let maximumIncludeDepth = 100

    /// Reads the manifest at `path` and everything it includes.
    ///
    /// - Parameters:
    ///   - path: The manifest, as ninja's `-f` takes it.
    ///   - files: Where `path` and the files it includes are read.
    ///   - options: The `-w` flags and the version.
    ///   - warning: Receives ninja's warnings (to print after `ninja: warning: `) in order, before
    ///     the function returns or throws.
    /// - Throws: `ManifestError`, worded as ninja words it.
    public static func parse(
        file path: String, files: any ManifestFiles = DiskManifestFiles(), options: Options = Options(),
        warning: (String) -> Void = { _ in }
    ) throws(ManifestError) -> NinjaGraph {
        let contents: [UInt8]
        do {
            contents = try files.read(path)
        } catch {
            throw ManifestError("loading '\(path)': \(error.reason)")
        }
        return try parse(contents: contents, fileName: path, files: files, options: options, warning: warning)
    }

    /// Reads a manifest from memory, as if it were the file `fileName` (ninja's tests call it
    /// `input`); the files it includes come from `files`.
    public static func parse(
        contents: [UInt8], fileName: String = "input", files: any ManifestFiles = InMemoryManifestFiles(),
        options: Options = Options(), warning: (String) -> Void = { _ in }
    ) throws(ManifestError) -> NinjaGraph {
        var parser = ManifestParser(lexer: Lexer(fileName: fileName, contents: contents), files: files, options: options)
        let result: Result<Void, ManifestError>
        do {
            try parser.run()
            result = .success(())
        } catch {
            result = .failure(error)
        }
        for text in parser.warnings { warning(text) }
        try result.get()
        return parser.graph
    }

    /// `parse(contents:...)` of a string's UTF-8 bytes.
    public static func parse(
        _ text: String, fileName: String = "input", files: any ManifestFiles = InMemoryManifestFiles(),
        options: Options = Options(), warning: (String) -> Void = { _ in }
    ) throws(ManifestError) -> NinjaGraph {
        try parse(contents: Array(text.utf8), fileName: fileName, files: files, options: options, warning: warning)
    }

    // MARK: State

    /// A file whose `include` or `subninja` is being read.
    private struct SuspendedFile {
        var lexer: Lexer
        var scope: NinjaGraph.ScopeID
    }

    var graph = NinjaGraph()
    let files: any ManifestFiles
    let options: Options
    var warnings: [String] = []
    /// The file being read.
    var lexer: Lexer
    /// The scope it reads into.
    var scope: NinjaGraph.ScopeID = 0
    private var suspended: [SuspendedFile] = []

    /// Scratch space reused from statement to statement: paths, a value, an expansion.
    var paths = LexedStrings()
    var value = LexedStrings()
    var expansion: [UInt8] = []

    private init(lexer: Lexer, files: any ManifestFiles, options: Options) {
        self.lexer = lexer
        self.files = files
        self.options = options
        graph.scopes[0].rules["phony"] = NinjaGraph.Rule(name: "phony")
    }

    // MARK: Statements

    private mutating func run() throws(ManifestError) {
        while true {
            let token = lexer.readToken()
            switch token {
            case .pool: try parsePool()
            case .build: try parseEdge()
            case .rule: try parseRule()
            case .default: try parseDefault()
            case .ident:
                lexer.unreadToken()
                let name = try parseLet()
                let expanded = expandValue()
                if name == "ninja_required_version" {
                    switch NinjaVersion.check(required: expanded, ninjaVersion: options.ninjaVersion) {
                    case .success(let warning): if let warning { warnings.append(warning) }
                    case .failure(let error): throw error
                    }
                }
                graph.scopes[Int(scope)].bindings[name] = expanded
            case .include: try parseFileInclude(newScope: false)
            case .subninja: try parseFileInclude(newScope: true)
            case .error: throw lexer.error(lexer.describeLastError())
            case .newline: continue
            case .eof:
                guard let parent = suspended.popLast() else { return }
                lexer = parent.lexer
                scope = parent.scope
                try expectToken(.newline)
            default:
                throw lexer.error("unexpected \(token.name)")
            }
        }
    }

    /// `include PATH` or `subninja PATH`: the file is read now, into this scope or a child.
    private mutating func parseFileInclude(newScope: Bool) throws(ManifestError) {
        value.removeAll()
        _ = try lexer.readPath(into: &value)
        let path = expandValue()
        if newScope {
            graph.scopes.append(NinjaGraph.Scope(parent: scope))
        }
        let contents: [UInt8]
        do {
            contents = try files.read(path)
        } catch {
            throw lexer.error("loading '\(path)': \(error.reason)")
        }
        if suspended.count + 1 >= Self.maximumIncludeDepth {
            throw lexer.error("'\(path)': include and subninja nested more than \(Self.maximumIncludeDepth) deep")
        }
        suspended.append(SuspendedFile(lexer: lexer, scope: scope))
        lexer = Lexer(fileName: path, contents: contents)
        if newScope { scope = NinjaGraph.ScopeID(graph.scopes.count - 1) }
    }

    /// `pool NAME` and its `depth = N`.
    private mutating func parsePool() throws(ManifestError) {
        guard let name = lexer.readIdent() else { throw lexer.error("expected pool name") }
        try expectToken(.newline)
        if graph.pools[name] != nil { throw lexer.error("duplicate pool '\(name)'") }
        var depth: Int32 = -1
        while lexer.peekToken(.indent) {
            let key = try parseLet()
            guard key == "depth" else { throw lexer.error("unexpected variable '\(key)'") }
            depth = CInteger.atoi(expandValue())
            if depth < 0 { throw lexer.error("invalid pool depth") }
        }
        if depth < 0 { throw lexer.error("expected 'depth =' line") }
        graph.pools[name] = NinjaGraph.Pool(name: name, depth: Int(depth))
    }

    /// `rule NAME` and its variables (only the reserved ones), kept unexpanded.
    private mutating func parseRule() throws(ManifestError) {
        guard let name = lexer.readIdent() else { throw lexer.error("expected rule name") }
        try expectToken(.newline)
        if graph.scopes[Int(scope)].rules[name] != nil { throw lexer.error("duplicate rule '\(name)'") }
        var rule = NinjaGraph.Rule(name: name)
        while lexer.peekToken(.indent) {
            let key = try parseLet()
            guard NinjaGraph.Rule.reservedBindings.contains(key) else { throw lexer.error("unexpected variable '\(key)'") }
            rule.bindings[key] = value.count > 0 ? value.evalString(0) : EvalString()
        }
        // ninja's check reads these three through `operator[]`, which adds them empty: an empty
        // rule variable then hides a file variable of the same name.
        for key in ["rspfile", "rspfile_content", "command"] where rule.bindings[key] == nil {
            rule.bindings[key] = EvalString()
        }
        if rule.bindings["rspfile"]?.isEmpty != rule.bindings["rspfile_content"]?.isEmpty {
            throw lexer.error("rspfile and rspfile_content need to be both specified")
        }
        if rule.bindings["command"]?.isEmpty ?? true { throw lexer.error("expected 'command =' line") }
        graph.scopes[Int(scope)].rules[name] = rule
    }

    /// `default TARGET...`: each target must already be a node.
    private mutating func parseDefault() throws(ManifestError) {
        value.removeAll()
        guard try lexer.readPath(into: &value) else { throw lexer.error("expected target name") }
        repeat {
            let path = try canonicalExpansion(of: value, index: 0, edgeBindings: nil)
            guard let path else { throw lexer.error("empty path") }
            guard let node = graph.node(at: path) else { throw lexer.error("unknown target '\(path)'") }
            graph.defaults.append(node)
            value.removeAll()
        } while try lexer.readPath(into: &value)
        try expectToken(.newline)
    }

    /// `NAME = VALUE`, the value left in `value`.
    mutating func parseLet() throws(ManifestError) -> String {
        guard let key = lexer.readIdent() else { throw lexer.error("expected variable name") }
        try expectToken(.equals)
        value.removeAll()
        _ = try lexer.readValue(into: &value)
        return key
    }

    mutating func expectToken(_ expected: ManifestToken) throws(ManifestError) {
        let token = lexer.readToken()
        if token != expected {
            throw lexer.error("expected \(expected.name), got \(token.name)\(expected.expectationHint)")
        }
    }

    // MARK: Expansion

    /// `value`'s string, expanded in the current scope (empty when there is none).
    mutating func expandValue() -> String {
        guard value.count > 0 else { return "" }
        expansion.removeAll(keepingCapacity: true)
        let scopes = graph.scopes
        let scope = self.scope
        value.expand(0, into: &expansion) { name in NinjaGraph.scopeValue(name, from: scope, in: scopes) }
        return String(decoding: expansion, as: UTF8.self)
    }

    /// String `index` of `strings` expanded (in the edge's variables, then the scopes) and
    /// canonicalised; nil when it expands to nothing ("empty path").
    mutating func canonicalExpansion(
        of strings: LexedStrings, index: Int, edgeBindings: [String: String]?
    ) throws(ManifestError) -> String? {
        guard try expandCanonically(strings, index: index, edgeBindings: edgeBindings) else { return nil }
        return String(decoding: expansion, as: UTF8.self)
    }

    /// The node of string `index` of `strings`, expanded and canonicalised as in
    /// ``canonicalExpansion(of:index:edgeBindings:)``, added when new; nil when it expands to
    /// nothing. A path the graph has makes no `String`.
    mutating func canonicalNode(
        of strings: LexedStrings, index: Int, edgeBindings: [String: String]?
    ) throws(ManifestError) -> NinjaGraph.NodeID? {
        guard try expandCanonically(strings, index: index, edgeBindings: edgeBindings) else { return nil }
        return expansion.withUnsafeBytes { graph.addNode(bytes: $0) }
    }

    /// Expands string `index` of `strings` into `expansion`, canonicalised; false when it
    /// expands to nothing.
    private mutating func expandCanonically(
        _ strings: LexedStrings, index: Int, edgeBindings: [String: String]?
    ) throws(ManifestError) -> Bool {
        expansion.removeAll(keepingCapacity: true)
        let scopes = graph.scopes
        let scope = self.scope
        strings.expand(index, into: &expansion) { name in
            edgeBindings?[name] ?? NinjaGraph.scopeValue(name, from: scope, in: scopes)
        }
        if expansion.isEmpty { return false }
        try CanonicalPath.canonicalize(&expansion)
        return true
    }
}
