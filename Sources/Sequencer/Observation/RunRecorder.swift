/// Keeps a run's progress somewhere durable: a journal.
///
/// Pass one as ``RunOptions/recorder``. The run calls it:
/// - ``runStarting(jobs:)`` once, from ``Workflow/start(_:)`` after the workflow is validated and
///   before any job starts. It returns the results of jobs that already succeeded in an earlier
///   attempt at this run (a *resume*): those jobs are not run again, and their results stand.
///   Throwing makes `start` throw.
/// - ``jobStarted(_:index:at:)`` when a job's body is about to run, and ``jobFinished(_:)``
///   when a job ends, however it ended. A job's finish is always recorded before any job that
///   needs it starts, so a record that is durable implies its needs' records are durable too
///   as long as records are written in the order they arrive. `jobFinished` is called while the
///   run's scheduler holds its lock: it must be quick (append to a buffer) and must not call
///   back into the run.
/// - ``runFinished(_:)`` once, with the run's report, before ``Run/report()`` returns to
///   anyone: a recorder that writes in the background finishes writing here.
public protocol RunRecorder: Sendable {
    /// The run begins with these jobs (in the order they were added). Returns the results to
    /// restore, by job: jobs of an earlier attempt at this run that succeeded.
    func runStarting(jobs: [JobID]) throws -> [JobID: RestoredResult]
    /// The body of the job at `index` (its position in the run) is about to run, `at` after
    /// the run started.
    func jobStarted(_ id: JobID, index: Int, at: Duration)
    /// The job ended.
    func jobFinished(_ record: JobRecord)
    /// The run ended; write what is left.
    func runFinished(_ report: RunReport) async
}

/// A result that a ``RunRecorder`` kept from an earlier attempt at a run.
public enum RestoredResult: Sendable {
    /// The job returned nothing (`Void`), or was up to date.
    case void
    /// The job returned a value, kept in an encoded form.
    case encoded(any EncodedResult)
}

/// A job's value kept in an encoded form that can be decoded as the job's result type.
public protocol EncodedResult: Sendable {
    func decode<T: Decodable>(_ type: T.Type) throws -> T
}

/// How one job ended, as a ``RunRecorder`` sees it.
public struct JobRecord: Sendable {
    /// The job.
    public let id: JobID
    /// Its position in the run: the workflow's jobs first, in the order they were added, then
    /// children in the order they were added.
    public let index: Int
    /// How it ended. An up-to-date job is `.skipped` with ``errorCode`` `.upToDate`.
    public let status: JobStatus
    /// Why it did not succeed, or nil.
    public let errorCode: JobError.Code?
    /// The error its body threw, when the failure started here.
    public let underlying: (any Error)?
    /// The job whose failure this one inherits (a need that did not succeed), or nil.
    public let cause: JobID?
    /// How many times its body was called.
    public let attempts: Int
    /// When it started and ended, after the run's start; nil when it never started.
    public let startedAt: Duration?
    public let endedAt: Duration?
    /// Its result, for a job that succeeded with a value other than `Void`.
    public let value: (any Sendable)?
    /// Whether the job returns a value other than `Void`.
    public let hasValue: Bool
    /// Whether its result was restored (see ``RunRecorder/runStarting(jobs:)``): its body was not called.
    public let restored: Bool
    /// The job that added it while it ran, or nil.
    public let parent: JobID?
}

extension SchedulerState {
    /// The record of a job that just ended.
    func record(of job: Int32) -> JobRecord {
        let state = jobs[Int(job)]
        let failure = failures[job]
        let started = state.startedAt >= 0
        let parent = parent(of: job)
        let restored = plan.isRestored(Int(job))
        return JobRecord(
            id: id(of: job),
            index: Int(job),
            status: status(of: job, state.phase),
            errorCode: failure?.code ?? (isUpToDate(job) ? .upToDate : nil),
            underlying: failure?.underlying,
            cause: failure.flatMap { $0.cause >= 0 ? id(of: $0.cause) : nil },
            attempts: restored ? 0 : Int(state.attempts),
            startedAt: started ? .nanoseconds(state.startedAt) : nil,
            endedAt: started ? .nanoseconds(state.endedAt) : nil,
            value: value(of: job),
            hasValue: hasValue(job),
            restored: restored,
            parent: parent >= 0 ? id(of: parent) : nil)
    }
}
