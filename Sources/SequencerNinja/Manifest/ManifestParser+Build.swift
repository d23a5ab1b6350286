extension ManifestParser {
    /// `build OUTPUTS [| IMPLICIT_OUTPUTS]: RULE INPUTS [| IMPLICIT] [|| ORDER_ONLY] [|@ VALIDATIONS]`
    /// and its indented variables.
    ///
    /// As in ninja, every path is read before any is expanded (they expand in the statement's
    /// variables, which come after them), so errors about paths point past the statement.
    mutating func parseEdge() throws(ManifestError) {
        let line = lexer.lineNumber(of: lexer.lastToken)
        paths.removeAll()
        while try lexer.readPath(into: &paths) {}
        var implicitOutputs = 0
        if lexer.peekToken(.pipe) {
            while try lexer.readPath(into: &paths) { implicitOutputs += 1 }
        }
        let outputEnd = paths.count
        if outputEnd == 0 { throw lexer.error("expected path") }
        try expectToken(.colon)

        guard let ruleName = lexer.readIdent() else { throw lexer.error("expected build command name") }
        guard let ruleScope = declaringScope(ofRule: ruleName) else {
            throw lexer.error("unknown build rule '\(ruleName)'")
        }

        while try lexer.readPath(into: &paths) {}
        var implicitInputs = 0
        if lexer.peekToken(.pipe) {
            while try lexer.readPath(into: &paths) { implicitInputs += 1 }
        }
        var orderOnlyInputs = 0
        if lexer.peekToken(.pipe2) {
            while try lexer.readPath(into: &paths) { orderOnlyInputs += 1 }
        }
        let inputEnd = paths.count
        if lexer.peekToken(.pipeAt) {
            while try lexer.readPath(into: &paths) {}
        }
        let validationEnd = paths.count
        try expectToken(.newline)

        // The statement's variables, each expanded in the enclosing scope (not in the ones
        // before it).
        var bindings: [String: String] = [:]
        while lexer.peekToken(.indent) {
            let key = try parseLet()
            bindings[key] = expandValue()
        }

        var edge = NinjaGraph.Edge(rule: ruleName, scope: scope)
        edge.ruleScope = ruleScope
        edge.bindings = bindings
        edge.file = lexer.fileName
        edge.line = line
        let edgeID = NinjaGraph.EdgeID(graph.edges.count)

        // The pool is looked up before the edge has paths: `$in` and `$out` are empty here.
        let poolName = try evaluate("pool", of: edge, escaping: .shell)
        if !poolName.isEmpty {
            if graph.pools[poolName] == nil { throw lexer.error("unknown pool name '\(poolName)'") }
            edge.pool = poolName
        }

        edge.outputs.reserveCapacity(outputEnd)
        for index in 0..<outputEnd {
            guard let node = try canonicalNode(of: paths, index: index, edgeBindings: bindings) else {
                throw lexer.error("empty path")
            }
            if graph.nodes[Int(node)].inEdge != nil {
                let path = graph.nodes[Int(node)].path
                switch options.duplicateOutputs {
                case .error:
                    throw lexer.error("multiple rules generate \(path)")
                case .warn:
                    warnings.append(
                        "multiple rules generate \(path). builds involving this target will not be correct; continuing anyway")
                    if outputEnd - index <= implicitOutputs { implicitOutputs -= 1 }
                }
                continue
            }
            edge.outputs.append(node)
            graph.nodes[Int(node)].inEdge = edgeID
        }
        // Every output already has a statement: ninja drops this one.
        if edge.outputs.isEmpty { return }
        edge.implicitOutputs = implicitOutputs

        edge.inputs.reserveCapacity(inputEnd - outputEnd)
        for index in outputEnd..<inputEnd {
            guard let node = try canonicalNode(of: paths, index: index, edgeBindings: bindings) else {
                throw lexer.error("empty path")
            }
            edge.inputs.append(node)
            graph.nodes[Int(node)].outEdges.append(edgeID)
        }
        edge.implicitInputs = implicitInputs
        edge.orderOnlyInputs = orderOnlyInputs

        for index in inputEnd..<validationEnd {
            guard let node = try canonicalNode(of: paths, index: index, edgeBindings: bindings) else {
                throw lexer.error("empty path")
            }
            edge.validations.append(node)
            graph.nodes[Int(node)].validationOutEdges.append(edgeID)
        }

        if options.phonyCycles == .warn && edge.isPhony && edge.outputs.count == 1 && edge.implicitOutputs == 0
            && edge.implicitInputs == 0
        {
            dropPhonySelfReference(&edge)
        }

        // The dyndep file must be one of the inputs.
        let dyndep = try evaluate("dyndep", of: edge, escaping: .none)
        if !dyndep.isEmpty {
            let path = try CanonicalPath.canonicalize(dyndep)
            let node = graph.addNode(path)
            graph.nodes[Int(node)].dyndepPending = true
            edge.dyndep = node
            if !edge.inputs.contains(node) { throw lexer.error("dyndep '\(path)' is not an input") }
        }

        graph.edges.append(edge)
    }

    /// `build a: phony a`, as CMake 2.8.12 and 3.0 wrote: ninja drops `a` from the inputs (the
    /// node still lists the edge among its readers, and the order-only count is not
    /// changed, as in ninja; it is only kept within the inputs).
    private mutating func dropPhonySelfReference(_ edge: inout NinjaGraph.Edge) {
        let output = edge.outputs[0]
        let before = edge.inputs.count
        edge.inputs.removeAll { $0 == output }
        guard edge.inputs.count != before else { return }
        edge.orderOnlyInputs = min(edge.orderOnlyInputs, edge.inputs.count)
        warnings.append(
            "phony target '\(graph.nodes[Int(output)].path)' names itself as an input; ignoring [-w phonycycle=warn]")
    }

    /// The scope that declares rule `name`, looking from the current scope outwards.
    private func declaringScope(ofRule name: String) -> NinjaGraph.ScopeID? {
        var current: NinjaGraph.ScopeID? = scope
        while let index = current {
            if graph.scopes[Int(index)].rules[name] != nil { return index }
            current = graph.scopes[Int(index)].parent
        }
        return nil
    }

    private func evaluate(_ name: String, of edge: NinjaGraph.Edge, escaping: PathEscaping) throws(ManifestError) -> String {
        var state = EdgeEnvironmentLookup(escaping: escaping)
        return try graph.lookupVariable(name, edge: edge, state: &state)
    }
}
