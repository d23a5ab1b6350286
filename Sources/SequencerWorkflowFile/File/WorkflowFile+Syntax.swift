import Yams

extension WorkflowFile {
    /// A YAML syntax error as a position and a message, in the words of the mistake when it is
    /// a common one (a tab, an unclosed quote or bracket, a second document), else libyaml's.
    ///
    /// - Parameters:
    ///   - text: the text Yams read (its byte offsets are the ones in reader errors).
    ///   - source: that text as lines.
    ///   - original: the file's own lines, for quoting what is at the position.
    static func syntaxProblem(_ error: YamlError, in text: String, source: SourceText, original: SourceText)
        -> (location: SourceLocation, message: String)
    {
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            let location = SourceLocation(line: mark.line, column: mark.column)
            let contextLocation = context.map { SourceLocation(line: $0.mark.line, column: $0.mark.column) }
            return describe(problem: problem, context: context?.text, at: location, contextLocation: contextLocation,
                            original: original)
        case let .reader(problem, offset, value, _):
            let location = SourceText.location(ofUTF8Offset: offset ?? 0, in: text)
            if problem == "control characters are not allowed", let scalar = Unicode.Scalar(UInt32(clamping: value)) {
                return (location, "control character U+\(hex(scalar.value)) is not allowed in YAML; remove it")
            }
            return (location, "cannot read the file as YAML: \(problem)")
        default:
            return (SourceLocation(line: 1, column: 1), "cannot read the file as YAML: \(error)")
        }
    }

    private static func describe(
        problem: String, context: String?, at location: SourceLocation, contextLocation: SourceLocation?,
        original: SourceText
    ) -> (location: SourceLocation, message: String) {
        let found = original.scalar(at: location)
        if found == "\t" {
            return (location, "a tab cannot indent YAML or start a value here; use spaces")
        }
        if let context, let contextLocation, problem == "found unexpected end of stream" {
            let opening = original.scalar(at: contextLocation).map { "\($0)" } ?? "quote"
            if context.hasSuffix("quoted scalar") {
                return (contextLocation, "unterminated quoted string: the \(opening) here is never closed")
            }
        }
        if let contextLocation, let context, context == "while parsing a flow sequence" || context == "while parsing a flow mapping" {
            if found == "{", location.column > 1,
               original.scalar(at: SourceLocation(line: location.line, column: location.column - 1)) == "$" {
                return (SourceLocation(line: location.line, column: location.column - 1),
                        "'${' inside '[ ]' or '{ }' must be in quotes: write \"…${name}…\", or put the list's items "
                        + "on lines of their own ('- …')")
            }
            let (bracket, closing, kind) = context.hasSuffix("sequence") ? ("[", "]", "list") : ("{", "}", "mapping")
            return (contextLocation, "unclosed '\(bracket)': the \(kind) must end with '\(closing)' before line \(location.line), "
                    + "column \(location.column) (found \(quoted(found)))")
        }
        if problem == "but found another document" {
            return (location, "a second YAML document starts here; a workflow file is one document (remove this '---' and what follows, or merge them)")
        }
        if problem.hasPrefix("Maximum nesting level reached") {
            return (location, "the file nests deeper than YAML allows here (1000 levels); a workflow needs only a few")
        }
        if problem == "mapping values are not allowed in this context" {
            return (location, "unexpected ':' here; a value that contains ': ' must be quoted, and a key must start its own line")
        }
        if let contextLocation, problem == "did not find expected key", context == "while parsing a block mapping" {
            return (location, "expected a key indented like those of the mapping at line \(contextLocation.line), "
                    + "column \(contextLocation.column); check this line's indentation")
        }
        var message = "YAML syntax error: \(problem)"
        if let context, let contextLocation {
            message += " (\(context) at line \(contextLocation.line), column \(contextLocation.column))"
        }
        if problem.hasPrefix("did not find expected key") || problem.hasPrefix("did not find expected '-'") {
            message += "; check the indentation"
        }
        return (location, message)
    }

    private static func quoted(_ scalar: Unicode.Scalar?) -> String {
        guard let scalar else { return "nothing" }
        return scalar.properties.isWhitespace || scalar.value < 0x20 ? "U+\(hex(scalar.value))" : "'\(scalar)'"
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
