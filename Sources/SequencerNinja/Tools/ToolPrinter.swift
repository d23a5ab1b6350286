/// A tool's output, buffered: ninja prints its reports with `printf` on a line-buffered
/// stdout, so text is gathered here and written in large pieces, and written out before any
/// message goes to standard error, so that the two streams interleave as ninja's do.
final class ToolPrinter {
    private let output: NinjaToolOutput
    private var pending = ""
    /// Text is written once this many bytes are pending.
    private static let flushThreshold = 1 << 16

    init(output: NinjaToolOutput) { self.output = output }

    /// Adds `text` to standard output.
    func print(_ text: String) {
        pending += text
        if pending.utf8.count >= Self.flushThreshold { flush() }
    }

    /// Writes what is pending.
    func flush() {
        guard !pending.isEmpty else { return }
        output.standardOutput(pending)
        pending = ""
    }

    /// `ninja: error: MESSAGE`.
    func error(_ message: String) { standardError("ninja: error: \(message)\n") }
    /// `ninja: warning: MESSAGE`.
    func warning(_ message: String) { standardError("ninja: warning: \(message)\n") }
    /// `ninja: fatal: MESSAGE`.
    func fatal(_ message: String) { standardError("ninja: fatal: \(message)\n") }

    /// Writes `text` to standard error as it is, after what is pending on standard output.
    func standardError(_ text: String) {
        flush()
        output.standardError(text)
    }

    /// Reports a failure as ninja does: `fatal` for the fatal ones (ninja's `Fatal`), else
    /// `error`.
    func report(_ failure: ManifestError) {
        if failure.isFatal { fatal(failure.message) } else { error(failure.message) }
    }
}
