extension AttemptRecord {
    /// How the attempt ended, in words: `exit code 1`, `killed by SIGTERM`, or
    /// `could not start: <why>`.
    public var exitSummary: String {
        guard let exit else { return "could not start" + (startError.map { ": \($0)" } ?? "") }
        return exit.description
    }
}
