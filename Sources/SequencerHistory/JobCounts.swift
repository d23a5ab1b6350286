/// How many of a run's jobs are in each state: the one definition of every count that a list of
/// runs shows (`sequencer runs`, `show`, the web page, their JSON), whichever history it read.
///
/// Each job is in exactly one state, so for a run that ended
/// `succeeded + upToDate + failed + timedOut + cancelled + skipped == jobs`, and ``unfinished``
/// counts the rest (jobs still pending or running, or never ended in an interrupted run).
///
/// A list's **FAILED** column is ``failures``: jobs that ran and did not succeed, failed or timed
/// out. Cancelled and skipped jobs are not failures; they have columns of their own.
public struct JobCounts: Sendable, Hashable, Codable {
    /// Every job of the run, ended or not.
    public var jobs: Int
    /// Jobs that ran and succeeded (up-to-date jobs are not among them).
    public var succeeded: Int
    /// Jobs that were up to date, and did not run.
    public var upToDate: Int
    /// Jobs that ran and failed after their last attempt (timed-out jobs are not among them).
    public var failed: Int
    /// Jobs whose timeout passed while they ran.
    public var timedOut: Int
    /// Jobs cancelled, before they started or while they ran.
    public var cancelled: Int
    /// Jobs that never started because a need did not succeed (up-to-date jobs are not among them).
    public var skipped: Int
    /// Jobs that took more than one attempt; nil when the history does not count them cheaply.
    public var retried: Int?

    public init(
        jobs: Int = 0, succeeded: Int = 0, upToDate: Int = 0, failed: Int = 0, timedOut: Int = 0, cancelled: Int = 0,
        skipped: Int = 0, retried: Int? = nil
    ) {
        (self.jobs, self.succeeded, self.upToDate, self.failed) = (jobs, succeeded, upToDate, failed)
        (self.timedOut, self.cancelled, self.skipped, self.retried) = (timedOut, cancelled, skipped, retried)
    }

    /// The counts of jobs in these states: each job once (`jobs` is their number).
    public init(_ states: some Sequence<JobState>) {
        self.init()
        for state in states { add(state) }
    }

    /// Counts one more job, in `state`.
    public mutating func add(_ state: JobState, count: Int = 1) {
        jobs += count
        switch state {
        case .pending, .running: break
        case .succeeded: succeeded += count
        case .upToDate: upToDate += count
        case .failed: failed += count
        case .timedOut: timedOut += count
        case .cancelled: cancelled += count
        case .skipped: skipped += count
        }
    }

    /// Jobs that have ended, however.
    public var ended: Int { succeeded + upToDate + failed + timedOut + cancelled + skipped }
    /// Jobs that have not ended: pending or running, or left so by an interrupted run.
    public var unfinished: Int { max(0, jobs - ended) }
    /// The FAILED column: jobs that ran and did not succeed (failed, or timed out).
    public var failures: Int { failed + timedOut }
    /// Jobs that ran a command or were stopped while waiting to (succeeded, failed, timed out or
    /// cancelled): every job but the up-to-date, skipped and unfinished ones.
    public var ran: Int { succeeded + failed + timedOut + cancelled }

    /// The counts that are not 0, for people: `5 succeeded, 1 up to date`.
    public var text: String {
        let counts = [
            (succeeded, "succeeded"), (upToDate, "up to date"), (failed, "failed"), (skipped, "skipped"),
            (cancelled, "cancelled"), (timedOut, "timed out"), (unfinished, "unfinished"),
        ]
        let shown = counts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return shown.isEmpty ? "no jobs" : shown.joined(separator: ", ")
    }
}
