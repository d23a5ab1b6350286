import Yams

/// Reads YAML nodes into values, collecting a diagnostic (with the node's line and column)
/// for everything that is not what the format expects, instead of stopping at the first.
struct NodeReader {
    let file: String
    /// The file's text, to place errors inside a value.
    let source: SourceText
    /// Keys the parser renamed because they repeat an earlier key of their mapping, by position,
    /// with their original text (see ``WorkflowFile/compose(_:)``).
    let repeatedKeys: [SourceLocation: String]
    private(set) var diagnostics: [Diagnostic] = []
    /// The errors reported so far, to report each once: an alias makes several jobs share a value,
    /// and an error in it would otherwise be repeated.
    private var reported: Set<Diagnostic> = []

    /// Where aliases are that name no anchor: already reported, so their values are passed over
    /// without another error.
    let brokenAliases: Set<SourceLocation>

    init(file: String, source: SourceText, repeatedKeys: [SourceLocation: String],
         brokenAliases: Set<SourceLocation> = []) {
        self.file = file
        self.source = source
        self.repeatedKeys = repeatedKeys
        self.brokenAliases = brokenAliases
    }

    /// Whether a node is an alias that names no anchor (see ``brokenAliases``).
    func isBroken(_ node: Node) -> Bool {
        !brokenAliases.isEmpty && brokenAliases.contains(location(of: node))
    }

    /// Added to the errors reported while it is set: which template item is being read.
    /// An error that only differs in it is reported once, for the first item.
    var context: String?

    /// Reports an error, in this reader's file or in `other` (a file it includes).
    mutating func error(_ message: String, at location: SourceLocation, notes: [Diagnostic] = [], in other: String? = nil) {
        let key = Diagnostic(file: other ?? file, location: location, message: message, notes: notes)
        guard reported.insert(key).inserted else { return }
        var diagnostic = key
        if let context { diagnostic.message += " (\(context))" }
        diagnostics.append(diagnostic)
    }

    func note(_ message: String, at location: SourceLocation, in other: String? = nil) -> Diagnostic {
        Diagnostic(file: other ?? file, location: location, severity: .note, message: message)
    }

    /// `text`, read from `node`, with its `${name}`s replaced; an unknown name is reported at
    /// its `$` and the text returned as it is.
    mutating func expanded(
        _ text: String, of node: Node, _ what: String, by substitution: Substitution, as use: Substitution.Use
    ) -> String {
        expandedIfKnown(text, of: node, what, by: substitution, as: use) ?? text
    }

    /// `text` with its `${name}`s replaced, or nil (and an error) when one is unknown.
    mutating func expandedIfKnown(
        _ text: String, of node: Node, _ what: String, by substitution: Substitution, as use: Substitution.Use
    ) -> String? {
        do {
            return try substitution.apply(text, in: use)
        } catch {
            self.error("\(what): \(error.message)", at: location(ofOffset: error.offset, in: text, of: node))
            return nil
        }
    }

    /// One entry of a mapping, with its key as text.
    struct Entry {
        var key: String
        var keyNode: Node
        var keyLocation: SourceLocation
        var value: Node
    }

    /// The entries of a mapping, in file order. A repeated key is reported (where it repeats,
    /// with a note at the first) and left out.
    /// - Parameters:
    ///   - what: how the error names the mapping, e.g. "job 'build'".
    ///   - repeated: the error for a repeated key; by default "duplicate key 'KEY' in WHAT".
    mutating func entries(
        of node: Node, _ what: String, repeated: ((String) -> String)? = nil
    ) -> [Entry]? {
        let repeated = repeated ?? { "duplicate key '\($0)' in \(what)" }
        if isBroken(node) { return nil }
        guard let mapping = node.mapping else {
            error("\(what) must be a mapping of keys to values, found \(describe(node))", at: location(of: node))
            return nil
        }
        var result: [Entry] = []
        var firstLocation: [String: SourceLocation] = [:]
        result.reserveCapacity(mapping.count)
        for (keyNode, value) in mapping {
            let keyLocation = location(of: keyNode)
            guard let key = keyNode.scalar?.string else {
                error("keys of \(what) must be plain words, found \(describe(keyNode))", at: keyLocation)
                continue
            }
            // A key Yams found repeated was renamed (see `WorkflowFile.compose`); one it did not
            // (the same text with different tags, or an alias) is found here.
            if let original = repeatedKeys[keyLocation] ?? (firstLocation[key] == nil ? nil : key) {
                let first = firstLocation[original]
                error(repeated(original) + (first.map { " (first at line \($0.line))" } ?? ""),
                      at: keyLocation,
                      notes: first.map { [note("'\(original)' first defined here", at: $0)] } ?? [])
                continue
            }
            firstLocation[key] = firstLocation[key] ?? keyLocation
            result.append(Entry(key: key, keyNode: keyNode, keyLocation: keyLocation, value: value))
        }
        return result
    }

    /// Reports keys outside `allowed`, suggesting the closest allowed key.
    mutating func checkKeys(_ entries: [Entry], allowed: [String], in what: String) -> [Entry] {
        entries.filter { entry in
            if entry.key == "<<" {
                error("YAML merge keys ('<<') are not supported in \(what); write the keys out, or use an alias "
                      + "('*name') for a whole value", at: entry.keyLocation)
                return false
            }
            guard allowed.contains(entry.key) else {
                error("unknown key '\(entry.key)' in \(what)" + didYouMean(entry.key, among: allowed)
                      + (suggestion(for: entry.key, among: allowed) == nil
                         ? " (known keys: \(allowed.joined(separator: ", ")))" : ""),
                      at: entry.keyLocation)
                return false
            }
            return true
        }
    }

    /// A scalar's text; nil (with a diagnostic) for a list, a mapping or an empty value.
    mutating func string(_ node: Node, _ what: String) -> String? {
        if isBroken(node) { return nil }
        guard let scalar = node.scalar, !isNull(node) else {
            error("\(what) must be a string, found \(describe(node))", at: location(of: node))
            return nil
        }
        return scalar.string
    }

    /// A whole number in `range`.
    mutating func integer(_ node: Node, _ what: String, in range: ClosedRange<Int>) -> Int? {
        if isBroken(node) { return nil }
        guard let text = node.scalar?.string, !isNull(node), let value = Int(text) else {
            error("\(what) must be a whole number, found \(describe(node))", at: location(of: node))
            return nil
        }
        guard range.contains(value) else {
            let bound = range.upperBound == .max ? "at least \(range.lowerBound)"
                : "from \(range.lowerBound) to \(range.upperBound)"
            error("\(what) must be \(bound), found \(value)", at: location(of: node))
            return nil
        }
        return value
    }

    /// A number (with a fraction or not) of at least `minimum`.
    mutating func number(_ node: Node, _ what: String, minimum: Double) -> Double? {
        if isBroken(node) { return nil }
        guard let text = node.scalar?.string, !isNull(node), let value = Double(text), value.isFinite else {
            error("\(what) must be a number, found \(describe(node))", at: location(of: node))
            return nil
        }
        guard value >= minimum else {
            error("\(what) must be at least \(minimum), found \(text)", at: location(of: node))
            return nil
        }
        return value
    }

    /// `true` or `false`, unquoted.
    mutating func bool(_ node: Node, _ what: String) -> Bool? {
        if isBroken(node) { return nil }
        let scalar = node.scalar
        switch scalar?.string {
        case "true" where scalar?.style == .plain: return true
        case "false" where scalar?.style == .plain: return false
        case let text? where text == "true" || text == "false":
            let quote = scalar?.style == .singleQuoted ? "'" : scalar?.style == .doubleQuoted ? "\"" : ""
            error("\(what) must be true or false without quotes, found '\(quote)\(text)\(quote)'", at: location(of: node))
            return nil
        default:
            error("\(what) must be true or false, found \(describe(node))", at: location(of: node))
            return nil
        }
    }

    /// A duration such as `10s` or `1h30m`; the error points at the offending character.
    mutating func duration(_ node: Node, _ what: String) -> Duration? {
        guard let text = string(node, what) else { return nil }
        do {
            return try DurationSyntax.parse(text)
        } catch {
            self.error("\(what): bad duration '\(text)': \(error.message)",
                       at: location(ofOffset: error.offset, in: text, of: node))
            return nil
        }
    }

    /// Where the scalar at `offset` of a scalar's text is in the file: on the node's line, past
    /// its opening quote, when the file has the text written there as it is (no escapes, not
    /// folded over lines); else where the node starts.
    func location(ofOffset offset: Int, in text: String, of node: Node) -> SourceLocation {
        let start = location(of: node)
        guard offset >= 0, let line = source.line(start.line) else { return start }
        let quoted = node.scalar.map { $0.style == .singleQuoted || $0.style == .doubleQuoted } ?? false
        let column = start.column + (quoted ? 1 : 0)
        let scalars = Array(text.unicodeScalars)
        let checked = min(offset + 1, scalars.count)
        guard column - 1 + checked <= line.count,
              line[(column - 1)..<(column - 1 + checked)].elementsEqual(scalars[..<checked]) else { return start }
        return SourceLocation(line: start.line, column: column + offset)
    }

    /// A list of strings; a single string counts as a list of one.
    mutating func strings(_ node: Node, _ what: String) -> [(String, Node)]? {
        if isNull(node) || isBroken(node) { return [] }
        if let scalar = node.scalar { return [(scalar.string, node)] }
        guard let sequence = node.sequence else {
            error("\(what) must be a list of strings, found \(describe(node))", at: location(of: node))
            return nil
        }
        var result: [(String, Node)] = []
        for item in sequence where !isBroken(item) {
            guard let scalar = item.scalar, !isNull(item) else {
                error("each of \(what) must be a string, found \(describe(item))", at: location(of: item))
                continue
            }
            result.append((scalar.string, item))
        }
        return result
    }

    /// A mapping of names to scalar values, as text (numbers and booleans as written), in file
    /// order, each with the node of its value.
    mutating func variables(_ node: Node, _ what: String) -> [(name: String, value: String, node: Node)]? {
        if isNull(node) { return [] }
        guard let entries = entries(of: node, what) else { return nil }
        var result: [(name: String, value: String, node: Node)] = []
        for entry in entries where !isBroken(entry.value) {
            guard let value = entry.value.scalar else {
                error("\(what): '\(entry.key)' must be a string, found \(describe(entry.value))",
                      at: location(of: entry.value))
                continue
            }
            if entry.key.isEmpty || entry.key.contains("=") {
                error("\(what): '\(entry.key)' is not a valid variable name", at: entry.keyLocation)
                continue
            }
            result.append((entry.key, isNull(entry.value) ? "" : value.string, entry.value))
        }
        return result
    }

    func location(of node: Node) -> SourceLocation {
        node.mark.map { SourceLocation(line: $0.line, column: $0.column) } ?? SourceLocation(line: 1, column: 1)
    }

    /// An empty value, `~` or `null` (unquoted).
    func isNull(_ node: Node) -> Bool {
        guard let scalar = node.scalar, scalar.style == .plain else { return false }
        return scalar.string.isEmpty || scalar.string == "~" || scalar.string == "null"
    }

    /// How an error names what it found.
    func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar):
            if isNull(node) { return "nothing" }
            let text = scalar.string.count > 40 ? String(scalar.string.prefix(40)) + "…" : scalar.string
            return "'\(text)'"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .alias: return "an alias"
        }
    }
}
