/// A problem found in a workflow file, at a line and column.
///
/// Its description is the form compilers use, so editors and terminals can jump to it:
///
/// ```
/// build.yml:12:14: error: job 'link' needs 'compile-mian', which is not a job; did you mean 'compile-main'?
/// ```
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Hashable {
        /// The file cannot be run.
        case error
        /// Probably a mistake, but the file can run (for example, a glob input that matches no file).
        case warning
        /// More about the error before it (for example, each edge of a cycle).
        case note
    }

    /// The file, as it was named to the command.
    public var file: String
    /// Where in the file.
    public var location: SourceLocation
    public var severity: Severity
    public var message: String
    /// Notes that belong to this error, printed after it.
    public var notes: [Diagnostic]

    public init(
        file: String, location: SourceLocation, severity: Severity = .error, message: String,
        notes: [Diagnostic] = []
    ) {
        self.file = file
        self.location = location
        self.severity = severity
        self.message = message
        self.notes = notes
    }

    /// `FILE:LINE:COLUMN: SEVERITY: MESSAGE`, then one line per note.
    public var description: String {
        let line = "\(file):\(location.line):\(location.column): \(severity.rawValue): \(message)"
        return ([line] + notes.map(\.description)).joined(separator: "\n")
    }
}

/// The errors that keep a workflow file from running, in file order.
public struct WorkflowFileError: Error, Sendable, CustomStringConvertible {
    /// Every error found, in the order of their positions in the files.
    public let diagnostics: [Diagnostic]

    /// - Parameter diagnostics: the errors, sorted here: by file (in the order the files first
    ///   appear), then by position.
    public init(diagnostics: [Diagnostic]) {
        var rank: [String: Int] = [:]
        for diagnostic in diagnostics where rank[diagnostic.file] == nil { rank[diagnostic.file] = rank.count }
        self.diagnostics = diagnostics.sorted {
            (rank[$0.file] ?? 0, $0.location.line, $0.location.column) < (rank[$1.file] ?? 0, $1.location.line, $1.location.column)
        }
    }

    /// One line per error and note.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
