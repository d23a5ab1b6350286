/// How a run stands, in the one vocabulary every history uses (the journal's and the queues').
public enum RunState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A job of it is waiting or running, and its recorder is alive (a queue's runs need none).
    case running
    /// Every job succeeded or was up to date.
    case succeeded
    /// A job failed or was skipped because a need did not succeed.
    case failed
    /// Someone cancelled it (Ctrl-C, `cancel`, the web page).
    case cancelled
    /// Its deadline passed.
    case timedOut
    /// It says it is running, but the process that recorded it is gone (killed, or the machine
    /// stopped): `sequencer resume` finishes it. Only a journal's runs can be interrupted.
    case interrupted

    public var description: String { rawValue }
}

/// How a job of a run stands, in the one vocabulary every history uses.
public enum JobState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// It has not started: waiting for its needs, or for a worker.
    case pending
    case running
    /// It ran and succeeded.
    case succeeded
    /// It was up to date, so it did not run (its outputs are as its last success left them).
    case upToDate
    /// It ran and failed (an exit code, a signal, an error) after its last attempt.
    case failed
    /// Its timeout passed while it ran.
    case timedOut
    /// It, or its run, was cancelled: before it started, or while it ran.
    case cancelled
    /// It never started: a job it needs did not succeed, or the run stopped after a failure.
    case skipped

    public var description: String { rawValue }

    /// Whether it has not ended yet.
    public var isLive: Bool { self == .pending || self == .running }
}
