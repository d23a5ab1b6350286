/// What a dyndep file says of one edge (ninja's `Dyndeps`).
struct Dyndeps: Sendable, Equatable {
    /// Whether the file sets `restat` for the edge.
    var restat = false
    var implicitInputs: [NinjaGraph.NodeID] = []
    var implicitOutputs: [NinjaGraph.NodeID] = []

    init(restat: Bool = false, implicitInputs: [NinjaGraph.NodeID] = [], implicitOutputs: [NinjaGraph.NodeID] = []) {
        self.restat = restat
        self.implicitInputs = implicitInputs
        self.implicitOutputs = implicitOutputs
    }
}

/// A dyndep file, read: for each edge it mentions, in the order it mentions them, its new
/// implicit inputs and outputs.
struct DyndepFile {
    /// A lexing error in a statement's implicit paths. ninja's parser returns its error string
    /// as `true` there: the statement ends, parsing goes on from the bad path, and the message
    /// stays set, so the build reports it unless a later error replaces it.
    var deferredError: ManifestError?
    private(set) var entries: [(edge: NinjaGraph.EdgeID, dyndeps: Dyndeps)] = []
    private var positions: [NinjaGraph.EdgeID: Int] = [:]

    subscript(edge: NinjaGraph.EdgeID) -> Dyndeps? {
        positions[edge].map { entries[$0].dyndeps }
    }

    /// Adds an empty entry; false if the edge has one already.
    mutating func insert(_ edge: NinjaGraph.EdgeID) -> Bool {
        if positions[edge] != nil { return false }
        positions[edge] = entries.count
        entries.append((edge, Dyndeps()))
        return true
    }

    mutating func update(_ edge: NinjaGraph.EdgeID, _ change: (inout Dyndeps) -> Void) {
        if let position = positions[edge] { change(&entries[position].dyndeps) }
    }
}

/// Reads a dyndep file (`ninja_dyndep_version = 1`, then
/// `build OUT [| IMPLICIT_OUTS]: dyndep [| IMPLICIT_INS]` and an optional `restat = 1`) as
/// ninja's `DyndepParser` does, with its messages. The paths it names become nodes of the
/// graph (new ones marked `generatedByDepLoader`).
struct DyndepParser {
    private var lexer: Lexer
    private var paths = LexedStrings()
    private var value = LexedStrings()

    init(fileName: String, contents: [UInt8]) {
        lexer = Lexer(fileName: fileName, contents: contents)
    }

    mutating func parse(into graph: inout NinjaGraph) throws(ManifestError) -> DyndepFile {
        var file = DyndepFile()
        var haveVersion = false
        while true {
            let token = lexer.readToken()
            switch token {
            case .build:
                if !haveVersion { throw lexer.error("expected 'ninja_dyndep_version = ...'") }
                try parseEdge(into: &graph, file: &file)
            case .ident:
                lexer.unreadToken()
                if haveVersion { throw lexer.error("unexpected \(token.name)") }
                try parseVersion()
                haveVersion = true
            case .error:
                throw lexer.error(lexer.describeLastError())
            case .eof:
                if !haveVersion { throw lexer.error("expected 'ninja_dyndep_version = ...'") }
                return file
            case .newline:
                continue
            default:
                throw lexer.error("unexpected \(token.name)")
            }
        }
    }

    private mutating func parseVersion() throws(ManifestError) {
        let name = try parseLet()
        if name != "ninja_dyndep_version" { throw lexer.error("expected 'ninja_dyndep_version = ...'") }
        let version = expand(value, 0)
        let (major, minor) = NinjaVersion.parse(version)
        if major != 1 || minor != 0 { throw lexer.error("unsupported 'ninja_dyndep_version = \(version)'") }
    }

    private mutating func parseLet() throws(ManifestError) -> String {
        guard let key = lexer.readIdent() else { throw lexer.error("expected variable name") }
        try expectToken(.equals)
        value.removeAll()
        _ = try lexer.readValue(into: &value)
        return key
    }

    private mutating func expectToken(_ expected: ManifestToken) throws(ManifestError) {
        let token = lexer.readToken()
        if token != expected {
            throw lexer.error("expected \(expected.name), got \(token.name)\(expected.expectationHint)")
        }
    }

    private mutating func parseEdge(into graph: inout NinjaGraph, file: inout DyndepFile) throws(ManifestError) {
        // One explicit output, which names the edge.
        paths.removeAll()
        guard try lexer.readPath(into: &paths) else { throw lexer.error("expected path") }
        let outputPath = expand(paths, 0)
        if outputPath.isEmpty { throw lexer.error("empty path") }
        let canonicalOutput = try CanonicalPath.canonicalize(outputPath)
        guard let outputNode = graph.node(at: canonicalOutput), let edge = graph.nodes[Int(outputNode)].inEdge else {
            throw lexer.error("no build statement exists for '\(canonicalOutput)'")
        }
        if !file.insert(edge) { throw lexer.error("multiple statements for '\(canonicalOutput)'") }

        paths.removeAll()
        if try lexer.readPath(into: &paths) { throw lexer.error("explicit outputs not supported") }

        // A lexing error in the implicit paths ends the statement (see `deferredError`).
        var outputs: [Int] = []
        if lexer.peekToken(.pipe) {
            do {
                while try lexer.readPath(into: &paths) { outputs.append(paths.count - 1) }
            } catch {
                file.deferredError = error
                return
            }
        }

        try expectToken(.colon)
        guard let rule = lexer.readIdent(), rule == "dyndep" else {
            throw lexer.error("expected build command name 'dyndep'")
        }

        if try lexer.readPath(into: &paths) { throw lexer.error("explicit inputs not supported") }
        var inputs: [Int] = []
        if lexer.peekToken(.pipe) {
            do {
                while try lexer.readPath(into: &paths) { inputs.append(paths.count - 1) }
            } catch {
                file.deferredError = error
                return
            }
        }

        if lexer.peekToken(.pipe2) { throw lexer.error("order-only inputs not supported") }
        try expectToken(.newline)

        if lexer.peekToken(.indent) {
            let key = try parseLet()
            if key != "restat" { throw lexer.error("binding is not 'restat'") }
            let restat = !expand(value, 0).isEmpty
            file.update(edge) { $0.restat = restat }
        }

        var implicitInputs: [NinjaGraph.NodeID] = []
        for index in inputs {
            implicitInputs.append(try node(expanding: index, in: &graph))
        }
        var implicitOutputs: [NinjaGraph.NodeID] = []
        for index in outputs {
            implicitOutputs.append(try node(expanding: index, in: &graph))
        }
        file.update(edge) {
            $0.implicitInputs = implicitInputs
            $0.implicitOutputs = implicitOutputs
        }
    }

    /// The node of path `index`, made if new. Variables expand to nothing: a dyndep file has
    /// none.
    private func node(expanding index: Int, in graph: inout NinjaGraph) throws(ManifestError) -> NinjaGraph.NodeID {
        let path = expand(paths, index)
        if path.isEmpty { throw lexer.error("empty path") }
        let canonical = try CanonicalPath.canonicalize(path)
        if let existing = graph.node(at: canonical) { return existing }
        let node = graph.addNode(canonical)
        graph.nodes[Int(node)].generatedByDepLoader = true
        return node
    }

    /// String `index` of `strings` with its variables empty; "" when there is no such string.
    private func expand(_ strings: LexedStrings, _ index: Int) -> String {
        guard index < strings.count else { return "" }
        var bytes: [UInt8] = []
        strings.expand(index, into: &bytes) { _ in nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
