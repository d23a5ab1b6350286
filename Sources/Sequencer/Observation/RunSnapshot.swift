/// The state of a run at one moment: how many jobs are in each state and which are running.
///
/// ```swift
/// for await snapshot in run.snapshots(every: .milliseconds(16)) {
///     print("\(snapshot.finished)/\(snapshot.total) running: \(snapshot.running)")
/// }
/// ```
public struct RunSnapshot: Sendable, CustomStringConvertible {
    /// Time since the run started, on the run's clock.
    public let elapsed: Duration
    /// The number of jobs in the run.
    public let total: Int
    /// Jobs that have not started yet (a job a worker took in a batch and has not begun included).
    public let pending: Int
    /// The jobs running now.
    public let running: [JobID]
    public let succeeded: Int
    public let failed: Int
    public let cancelled: Int
    public let skipped: Int
    public let timedOut: Int
    /// Jobs that were up to date (``JobStatus/upToDate``), not counted in ``succeeded``.
    public let upToDate: Int
    /// True for the last snapshot of a run.
    public let isFinished: Bool
    let version: UInt64

    /// Jobs that have ended, however they ended.
    public var finished: Int { succeeded + failed + cancelled + skipped + timedOut + upToDate }

    public var description: String {
        let progress = "[\(finished)/\(total)]"
        if isFinished { return progress + " finished" }
        return progress + " running: " + running.map(\.description).joined(separator: ", ")
    }
}

/// Something that happened in a run, delivered in order through ``RunOptions/events``.
public enum RunEvent: Sendable, Hashable {
    /// A worker took the job.
    case started(JobID)
    /// The job ended.
    case finished(JobID, JobStatus)
    /// The run ended; the last event.
    case runFinished(RunStatus)
}

extension SchedulerState {
    func snapshot(elapsed: Duration) -> RunSnapshot {
        func count(_ phase: JobPhase) -> Int { counts[phase] }
        return RunSnapshot(
            elapsed: elapsed,
            total: JobPhase.allCases.reduce(0) { $0 + counts[$1] },
            pending: count(.waiting) + count(.laneWaiting) + count(.queued) + unbegunInBatches,
            running: runningJobs.map { id(of: $0) },
            succeeded: count(.succeeded) - upToDate.count,
            failed: count(.failed),
            cancelled: count(.cancelled),
            skipped: count(.skipped),
            timedOut: count(.timedOut),
            upToDate: upToDate.count,
            isFinished: isFinished,
            version: version)
    }
}
