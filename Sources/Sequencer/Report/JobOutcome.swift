/// How a job ended.
public enum JobStatus: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Its body returned a value.
    case succeeded
    /// Its body threw (after its last attempt).
    case failed
    /// It, or the run, was cancelled: before it started, or while it ran.
    case cancelled
    /// It never started: a job it needs did not succeed, or the run stopped after a failure.
    case skipped
    /// Its timeout, or the run's deadline, passed while it ran.
    case timedOut
    /// It was up to date, so it skipped its work (see ``JobContext/markUpToDate()``): the jobs
    /// that need it run as after a success. Before this status existed, such a job was
    /// reported as ``skipped`` with an error coded ``JobError/Code/upToDate``.
    case upToDate

    public var description: String { rawValue }
}

extension JobPhase {
    var status: JobStatus {
        switch self {
        case .succeeded: .succeeded
        case .failed: .failed
        case .cancelled: .cancelled
        case .timedOut: .timedOut
        case .skipped, .waiting, .laneWaiting, .queued, .running: .skipped
        }
    }

    /// How a job in this phase ended, given whether it marked itself up to date.
    func status(upToDate: Bool) -> JobStatus {
        self == .succeeded && upToDate ? .upToDate : status
    }
}

/// What happened to one job in a run.
///
/// ```swift
/// let outcome = report.outcome(of: "fetch-config")
/// print(outcome?.status, outcome?.attempts, outcome?.duration)
/// ```
public struct JobOutcome: Sendable, CustomStringConvertible {
    /// The job.
    public let id: JobID
    /// How it ended.
    public let status: JobStatus
    /// Why it did not succeed; nil when it succeeded or was up to date.
    public let error: JobError?
    /// How many times its body was called (0 when it never started).
    public let attempts: Int
    /// When its body first started, as an offset from the run's start; nil if it never started.
    public let startedAt: Duration?
    /// When it ended, as an offset from the run's start; nil if it never started.
    public let endedAt: Duration?
    /// The job that added this one while it ran (see ``JobContext/addChild(_:needs:lane:priority:timeout:retry:coalesce:_:)``),
    /// or nil for a job of the workflow.
    public let parent: JobID?
    /// Whether its result was restored from an earlier attempt at this run (a resumed run; see
    /// ``RunRecorder``): its body was not called, and `attempts` is 0.
    public let restored: Bool

    /// How long it ran, counting all attempts.
    public var duration: Duration? {
        guard let startedAt, let endedAt else { return nil }
        return endedAt - startedAt
    }

    public var description: String {
        var text = "\(id): \(status)"
        if let duration { text += " in \(duration)" }
        if attempts > 1 { text += " after \(attempts) attempts" }
        if restored { text += " (restored)" }
        if let error { text += " (\(error))" }
        return text
    }
}
