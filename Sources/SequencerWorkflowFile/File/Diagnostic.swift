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
    /// Every error found, in the order of their positions in the file.
    public let diagnostics: [Diagnostic]

    public init(diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics.sorted { $0.location < $1.location }
    }

    /// One line per error and note.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
