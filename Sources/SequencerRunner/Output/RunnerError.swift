/// Why a runner stopped short, as the command line's exit status says it: the input was bad
/// (status 2), jobs failed (1), or a signal interrupted the run (130).
package struct RunnerError: Error, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// A usage error, a bad file, or a journal or queue that cannot be used.
        case invalid
        /// A job failed, or the run could not finish.
        case failed
        /// SIGINT or SIGTERM stopped it (or Ctrl-C cancelled a queue's run).
        case interrupted
    }

    package var kind: Kind
    /// What to say; nil when it was said already (on the output's diagnostics).
    package var message: String?

    package init(_ kind: Kind, _ message: String? = nil) {
        self.kind = kind
        self.message = message
    }

    package static let failed = RunnerError(.failed)
    package static let interrupted = RunnerError(.interrupted)

    package var description: String { message ?? "\(kind)" }
}
