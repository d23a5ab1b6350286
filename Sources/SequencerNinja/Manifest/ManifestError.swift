/// A failure to read a manifest or a dyndep file, or to evaluate an edge's variables, worded as
/// ninja 1.11.1 words it.
///
/// `message` is ready to print after `ninja: error: ` (or `ninja: fatal: ` when `isFatal`).
/// Errors found while lexing carry ninja's context: `FILE:LINE: message`, then the line
/// (cut at 72 columns with `...`) and a caret line `   ^ near here`; when the offending token
/// starts a line, only `FILE:LINE: message` and a newline, as ninja prints it.
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text ninja prints for it.
    public var message: String
    /// Whether ninja reports it with `Fatal` (`ninja: fatal: `) rather than as an error: an
    /// incompatible `ninja_required_version`, a cycle among rule variables, a path of more than
    /// 60 components.
    public var isFatal: Bool

    /// An error with ninja's text `message`.
    public init(_ message: String, isFatal: Bool = false) {
        self.message = message
        self.isFatal = isFatal
    }

    public var description: String { message }
}
