extension AttemptRecord {
    /// How the attempt ended, in words: `exit code 1`, `killed by SIGTERM`, or
    /// `could not start: <why>`.
    public var exitSummary: String {
        guard let exit else { return "could not start" + (startError.map { ": \($0)" } ?? "") }
        return exit.description
    }

    /// The process's exit code, when it exited (rather than being killed or not starting).
    public var exitCode: Int? {
        guard case .exited(let code)? = exit else { return nil }
        return Int(code)
    }

    /// The signal that killed the process, when one did.
    public var signal: Int? {
        guard case .signaled(let signal)? = exit else { return nil }
        return Int(signal)
    }
}
