public import Foundation

/// Where a run of a workflow file is written as it goes, whichever history keeps it: the journal
/// for a run here (`JournalRecorder`), a queue's store for the jobs a worker runs. Both ways of
/// running write their attempts, fingerprints and checks through it; ``RunHistory`` reads them
/// back as one model.
///
/// Every call returns at once. The journal batches its records and commits them with its run;
/// a queue's writer sends them to the store, in order, on a task of its own. ``flush()`` returns
/// once every record written before it is in the history's hands. A record that cannot be kept
/// never fails the job: the run goes on, and a missing fingerprint only makes the job run again.
public protocol RunWriter: FingerprintRecorder {
    /// Records an attempt of a job.
    func recordAttempt(_ attempt: NewAttempt)

    /// Returns once every record written before is kept, or handed to the history that keeps it
    /// with its run (the journal).
    func flush() async
}

/// Where an up-to-date check records the fingerprint of a job that succeeded, and why a job
/// ran: a ``RunWriter``, or a check's own recorder (a dry run keeps nothing).
public protocol FingerprintRecorder: Sendable {
    /// Records the fingerprint of a job that just succeeded, with its parts and its outputs'
    /// stamps.
    func recordFingerprint(job: String, fingerprint: String, parts: [String: String], outputs: [String: String])

    /// Records that a job was checked as it was about to start: its fingerprint, and why it
    /// runs (`--explain`'s words; nil: up to date). Histories that keep no checks ignore it.
    func recordCheck(job: String, fingerprint: String, reason: String?)
}

extension FingerprintRecorder {
    public func recordCheck(job: String, fingerprint: String, reason: String?) {}
}

/// An attempt of a job as its runner writes it; read back as a ``HistoryAttempt``.
public struct NewAttempt: Sendable, Hashable {
    /// How an attempt ended, in a queue's words (a journal tells them from ``exit`` and the
    /// job's state).
    public enum End: String, Sendable, Hashable {
        case succeeded, failed
        /// Its run or job was cancelled, or a deadline passed, while it ran.
        case stopped
        /// The worker's copy of the workflow does not have the job as submitted: the job went
        /// back to the queue without running.
        case refused
        /// Its check found it up to date: it did not run.
        case upToDate
    }

    /// Where its output is.
    public enum Output: Sendable, Hashable {
        /// It printed nothing, or its output was not kept.
        case none
        /// A file the history keeps (the journal's output directory).
        case file(String)
        /// The bytes themselves (a queue keeps them in its store).
        case bytes(Data)
    }

    /// The job's name.
    public var job: String
    /// The job's ID in a queue; nil in a run here.
    public var queueJob: Int64?
    /// 1 for the first.
    public var attempt: Int
    /// Nanoseconds since 1970.
    public var startedAt: Int64
    public var endedAt: Int64
    public var end: End
    /// How it ended, for people: `exit code 3`, `killed by SIGTERM`, `up to date`.
    public var exit: String
    public var exitCode: Int?
    public var signal: Int?
    public var output: Output

    public init(
        job: String, queueJob: Int64? = nil, attempt: Int, startedAt: Int64, endedAt: Int64, end: End, exit: String,
        exitCode: Int? = nil, signal: Int? = nil, output: Output = .none
    ) {
        (self.job, self.queueJob, self.attempt, self.startedAt, self.endedAt) = (job, queueJob, attempt, startedAt, endedAt)
        (self.end, self.exit, self.exitCode, self.signal, self.output) = (end, exit, exitCode, signal, output)
    }
}

extension NewAttempt {
    /// The time now, in nanoseconds since 1970: an attempt's unit.
    public static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1e9).rounded()) }
}
