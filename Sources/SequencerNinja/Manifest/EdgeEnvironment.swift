/// Ninja's `EdgeEnv`: how a variable is looked up for a build statement.
///
/// The order is `$in`, `$in_newline`, `$out`; then the statement's own variables; then its
/// rule's variable of that name, expanded (recursively) for this edge; then the scope the
/// statement was read in and its parents. One quirk is ninja's too: a statement with no
/// variables of its own has no scope of its own, so its file's variables come before its
/// rule's (a top-level `command = x` overrides the rules' `command` for such statements).
///
/// Cycles among rule variables are fatal, as in ninja; and as in ninja, the names looked up
/// through rule variables are remembered for the whole evaluation, so a rule variable used
/// twice in one expansion (`command = cat $rspfile $rspfile`) is reported as a cycle
/// (`rspfile -> rspfile`).
struct EdgeEnvironmentLookup {
    let escaping: PathEscaping
    /// Whether a lookup has been made (ninja only checks for cycles after the first).
    var recursive = false
    /// The rule variables looked up so far, after the first.
    var lookups: [String] = []

    init(escaping: PathEscaping) { self.escaping = escaping }
}

extension NinjaGraph {
    /// Variable `name` of `edge` (which may not be in `edges` yet: the parser evaluates
    /// `pool` and `dyndep` while it builds the edge).
    func lookupVariable(_ name: String, edge: borrowing Edge, state: inout EdgeEnvironmentLookup) throws(ManifestError) -> String {
        if name == "in" || name == "in_newline" {
            let count = max(0, min(edge.inputs.count, edge.inputs.count - edge.implicitInputs - edge.orderOnlyInputs))
            return pathList(edge.inputs[..<count], separator: name == "in" ? " " : "\n", escaping: state.escaping)
        }
        if name == "out" {
            let count = max(0, min(edge.outputs.count, edge.outputs.count - edge.implicitOutputs))
            return pathList(edge.outputs[..<count], separator: " ", escaping: state.escaping)
        }
        if state.recursive, let first = state.lookups.firstIndex(of: name) {
            let cycle = state.lookups[first...].joined(separator: " -> ") + " -> " + name
            throw ManifestError("cycle in rule variables: \(cycle)", isFatal: true)
        }
        let ruleValue = rule(of: edge)?.bindings[name]
        if state.recursive && ruleValue != nil { state.lookups.append(name) }
        state.recursive = true

        // The statement's scope: its own variables when it has some, else its file's.
        var parent: ScopeID?
        if edge.bindings.isEmpty {
            let scope = scopes[Int(edge.scope)]
            if let value = scope.bindings[name] { return value }
            parent = scope.parent
        } else {
            if let value = edge.bindings[name] { return value }
            parent = edge.scope
        }
        if let ruleValue { return try expand(ruleValue, edge: edge, state: &state) }
        guard let parent else { return "" }
        return Self.scopeValue(name, from: parent, in: scopes) ?? ""
    }

    /// `value` expanded for `edge`.
    func expand(_ value: EvalString, edge: borrowing Edge, state: inout EdgeEnvironmentLookup) throws(ManifestError) -> String {
        var result = ""
        for piece in value.pieces {
            switch piece {
            case .text(let text): result += text
            case .variable(let name): result += try lookupVariable(name, edge: edge, state: &state)
            }
        }
        return result
    }

    /// The rule an edge uses, if its scope has it.
    func rule(of edge: borrowing Edge) -> Rule? {
        let index = Int(edge.ruleScope)
        guard scopes.indices.contains(index) else { return nil }
        return scopes[index].rules[edge.rule]
    }

    /// Variable `name` in `scope` or its parents (a file's variables, as read so far).
    static func scopeValue(_ name: String, from scope: ScopeID, in scopes: [Scope]) -> String? {
        var current: ScopeID? = scope
        while let index = current, scopes.indices.contains(Int(index)) {
            if let value = scopes[Int(index)].bindings[name] { return value }
            current = scopes[Int(index)].parent
        }
        return nil
    }

    private func pathList(_ list: ArraySlice<NodeID>, separator: String, escaping: PathEscaping) -> String {
        var result = ""
        for node in list {
            if !result.isEmpty { result += separator }
            let path = nodes[Int(node)].path
            switch escaping {
            case .shell: ShellEscape.append(path, to: &result)
            case .none: result += path
            }
        }
        return result
    }
}
