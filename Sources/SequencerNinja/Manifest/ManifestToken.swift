/// The tokens of ninja's manifest language (and of dyndep files).
enum ManifestToken: Sendable, Equatable {
    case error, build, colon, `default`, equals, ident, include, indent, newline
    case pipe, pipe2, pipeAt, pool, rule, subninja, eof

    /// How ninja names the token in "expected X, got Y" messages.
    var name: String {
        switch self {
        case .error: "lexing error"
        case .build: "'build'"
        case .colon: "':'"
        case .default: "'default'"
        case .equals: "'='"
        case .ident: "identifier"
        case .include: "'include'"
        case .indent: "indent"
        case .newline: "newline"
        case .pipe2: "'||'"
        case .pipe: "'|'"
        case .pipeAt: "'|@'"
        case .pool: "'pool'"
        case .rule: "'rule'"
        case .subninja: "'subninja'"
        case .eof: "eof"
        }
    }

    /// What ninja adds after "expected X, got Y" when X is this token.
    var expectationHint: String {
        self == .colon ? " ($ also escapes ':')" : ""
    }
}
