/// Keeps a run's progress somewhere durable: a journal.
///
/// Pass one as ``RunOptions/recorder``. The run calls ``runStarting(jobs:log:)`` once, from
/// ``Workflow/start(_:)`` after the workflow is validated and before any job starts; it
/// returns the results of jobs that already succeeded in an earlier attempt at this run (a
/// *resume*): those jobs are not run again, and their results stand. Throwing makes `start`
/// throw.
///
/// The recorder reads what happened by calling ``RunLog/take()`` on the log it was given, as
/// often as it likes (every few milliseconds, say), on a thread of its own. The run only
/// notes each job's position as it starts and ends, so recording costs the run almost
/// nothing; `take()` copies the details under the run's lock and builds the records outside
/// it. Records come in the order jobs ended, so a job's end is always taken before the end
/// of any job that needs it: written in order, a record that is durable implies its needs'
/// records are durable too.
///
/// The run calls ``runFinished(_:)`` once, with its report, before ``Run/report()`` returns
/// to anyone: the recorder takes the last records and finishes writing there.
///
/// Its requirements, and the log and records it reads, are the journal's plumbing, behind
/// `@_spi(Recording)`: an app passes a recorder (`SequencerJournal`'s `JournalRecorder`), and a
/// module that writes one imports `@_spi(Recording) import Sequencer`.
public protocol RunRecorder: Sendable {
    /// The run begins with these jobs (in the order they were added); `log` hands out its
    /// records. Returns the results to restore, by job: jobs of an earlier attempt at this
    /// run that succeeded.
    @_spi(Recording) func runStarting(jobs: [JobID], log: RunLog) throws -> [JobID: RestoredResult]
    /// The run ended; take the last records and write what is left.
    @_spi(Recording) func runFinished(_ report: RunReport) async
}

/// What a run hands its ``RunRecorder``: the jobs that started and ended since the last take.
@_spi(Recording) public final class RunLog: Sendable {
    /// The running run, once it exists, until its recorder has finished.
    private let core = Locked<RunCore?>(nil)

    init() {}

    func attach(_ core: RunCore) { self.core.withLock { $0 = core } }
    func detach() { core.withLock { $0 = nil } }

    /// The jobs that started, and the records of the jobs that ended, since the last call, in
    /// the order they did; empty once the run has been handed to ``RunRecorder/runFinished(_:)``
    /// and everything was taken.
    public func take() -> RunLogBatch {
        guard let core = core.withLock({ $0 }) else { return RunLogBatch(started: [], ended: [], ids: []) }
        return core.takeLog()
    }
}

/// The jobs that started and ended since a recorder's last ``RunLog/take()``.
@_spi(Recording) public struct RunLogBatch: Sendable {
    /// The positions of the jobs whose bodies are about to run (see ``JobRecord/index``).
    public let started: [Int]
    /// The jobs that ended, in the order they did.
    public let ended: [JobRecord]
    /// The IDs of the workflow's jobs, by position.
    let ids: [JobID]

    public var isEmpty: Bool { started.isEmpty && ended.isEmpty }

    /// The ID of the job a record is about.
    public func id(of record: JobRecord) -> JobID {
        record.extra?.childID ?? ids[record.index]
    }
}

/// How one job ended, as a ``RunRecorder`` sees it: small, since a run makes one per job.
@_spi(Recording) public struct JobRecord: Sendable {
    /// Its position in the run: the workflow's jobs first, in the order they were added, then
    /// children in the order they were added.
    public let index: Int
    /// How it ended.
    public let status: JobStatus
    /// How many times its body was called.
    public let attempts: Int
    private let started: Int64
    private let ended: Int64
    /// Whether the job returns a value other than `Void`.
    public let hasValue: Bool
    /// Whether its result was restored (see ``RunRecorder/runStarting(jobs:log:)``): its body
    /// was not called.
    public let restored: Bool
    /// What few jobs have: a value, an error, a parent.
    let extra: Extra?

    final class Extra: Sendable {
        let value: (any Sendable)?
        let errorCode: JobError.Code?
        let underlying: (any Error)?
        let childID: JobID?
        let causeID: JobID?
        let parentID: JobID?

        init(value: (any Sendable)?, errorCode: JobError.Code?, underlying: (any Error)?, childID: JobID?, causeID: JobID?, parentID: JobID?) {
            self.value = value
            self.errorCode = errorCode
            self.underlying = underlying
            self.childID = childID
            self.causeID = causeID
            self.parentID = parentID
        }
    }

    init(index: Int, status: JobStatus, attempts: Int, started: Int64, ended: Int64, hasValue: Bool, restored: Bool, extra: Extra?) {
        self.index = index
        self.status = status
        self.attempts = attempts
        self.started = started
        self.ended = ended
        self.hasValue = hasValue
        self.restored = restored
        self.extra = extra
    }

    /// When it started and ended, after the run's start; nil when it never started.
    public var startedAt: Duration? { started >= 0 ? .nanoseconds(started) : nil }
    public var endedAt: Duration? { started >= 0 ? .nanoseconds(ended) : nil }
    /// Why it did not succeed, or nil.
    public var errorCode: JobError.Code? { extra?.errorCode }
    /// The error its body threw, when the failure started here.
    public var underlying: (any Error)? { extra?.underlying }
    /// The job whose failure this one inherits (a need that did not succeed), or nil.
    public var cause: JobID? { extra?.causeID }
    /// Its result, for a job that succeeded with a value other than `Void`.
    public var value: (any Sendable)? { extra?.value }
    /// The job that added it while it ran, or nil.
    public var parent: JobID? { extra?.parentID }
    /// Whether it is a child, added while its parent ran.
    public var isChild: Bool { extra?.childID != nil }
}

/// A result that a ``RunRecorder`` kept from an earlier attempt at a run.
@_spi(Recording) public enum RestoredResult: Sendable {
    /// The job returned nothing (`Void`), or was up to date.
    case void
    /// The job returned a value, kept in an encoded form.
    case encoded(any EncodedResult)
}

/// A job's value kept in an encoded form that can be decoded as the job's result type.
@_spi(Recording) public protocol EncodedResult: Sendable {
    func decode<T: Decodable>(_ type: T.Type) throws -> T
}

extension SchedulerState {
    /// What a finished job's record needs beyond its state, for the few jobs that have it:
    /// copied under the lock, to build the record outside it.
    struct LoggedExtras {
        var value: (any Sendable)?
        var failure: FailureRecord?
        var upToDate = false
        /// The ID of a child, of the needed job a failure came from, and of a child's parent.
        var childID: JobID?
        var causeID: JobID?
        var parentID: JobID?
    }

    /// Takes the positions logged since the last take, with their states, and the extras of
    /// the jobs that have them. Runs under the lock: most jobs cost a copy of their state.
    mutating func takeLog() -> (started: [Int32], ended: [(job: Int32, state: JobState)], extras: [Int32: LoggedExtras]) {
        let started = startedLog
        let ended = finishedLog.map { ($0, jobs[$0]) }
        var extras: [Int32: LoggedExtras] = [:]
        let anyExtras = plan.hasValues || !failures.isEmpty || !upToDate.isEmpty || !added.isEmpty
        if anyExtras {
            for job in finishedLog {
                var extra = LoggedExtras()
                if hasValue(job) { extra.value = value(of: job) }
                extra.failure = failures[job]
                extra.upToDate = isUpToDate(job)
                if let parent = parent(of: job) {
                    extra.childID = id(of: job)
                    extra.parentID = id(of: parent)
                }
                if let cause = extra.failure?.cause { extra.causeID = id(of: cause) }
                if extra.value != nil || extra.failure != nil || extra.upToDate || extra.childID != nil { extras[job] = extra }
            }
        }
        startedLog.removeAll(keepingCapacity: true)
        finishedLog.removeAll(keepingCapacity: true)
        return (started, ended, extras)
    }
}

extension RunCore {
    /// The records of the jobs that started and ended since the last call (see ``RunLog``).
    func takeLog() -> RunLogBatch {
        let (started, ended, extras) = state.withLock { $0.scheduler.takeLog() }
        var starts: [Int] = []
        starts.reserveCapacity(started.count)
        for job in started where plan.contains(job) && !plan.isRestored(Int(job)) { starts.append(Int(job)) }
        let records = ended.map { job, state in
            let logged = extras.isEmpty ? nil : extras[job]
            let restored = plan.isRestored(Int(job))
            let upToDate = logged?.upToDate == true
            let code = logged?.failure?.code
            let extra = logged.map { logged in
                JobRecord.Extra(
                    value: logged.value, errorCode: code, underlying: logged.failure?.underlying,
                    childID: logged.childID, causeID: logged.causeID, parentID: logged.parentID)
            }
            return JobRecord(
                index: Int(job),
                status: state.phase.status(upToDate: upToDate),
                attempts: restored ? 0 : Int(state.attempts),
                started: state.startedAt ?? -1, ended: state.endedAt,
                hasValue: plan.contains(job) ? plan.hasValue(Int(job)) : logged?.value != nil,
                restored: restored, extra: extra)
        }
        return RunLogBatch(started: starts, ended: records, ids: plan.ids)
    }
}
