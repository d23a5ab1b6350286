/// How a run ended as a whole.
public enum RunStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// Every job succeeded.
    case succeeded
    /// A job failed or timed out.
    case failed
    /// The run, or a job in it, was cancelled.
    case cancelled
    /// The run's deadline passed before every job finished.
    case timedOut

    public var description: String { rawValue }
}

/// Everything a finished run did: its status, every job's outcome, its duration, and its
/// critical path. ``Run/report()`` returns it; it never throws.
///
/// ```swift
/// let report = await run.report()
/// if report.status != .succeeded {
///     for outcome in report.outcomes where outcome.status != .succeeded { print(outcome) }
/// }
/// print(report.criticalPath)   // ["splash", "fetch-config", "whats-new"]
/// ```
public struct RunReport: Sendable {
    /// How the run ended.
    public let status: RunStatus
    /// From the run's start until its last job ended.
    public let duration: Duration
    /// The chain of jobs that decided the run's wall time, in execution order: the job that
    /// ended last, the job that let it start (the need that ended last, or the job whose end
    /// freed the worker or lane slot it waited for), and so on back to a job that waited for
    /// none. Up-to-date and restored jobs take no time and are not on it. See ``CriticalPath``.
    public var criticalPath: [JobID] { record.criticalPath().map(\.job) }
    /// The critical path with each job's times and what it waited for.
    public var criticalPathSteps: [CriticalPath.Step] { record.criticalPath() }
    let record: RunRecord

    init(record: RunRecord, stopReason: StopReason?, duration: Duration) {
        self.record = record
        self.duration = duration
        func count(_ phase: JobPhase) -> Int { record.counts[phase] }
        if stopReason == .deadline {
            status = .timedOut
        } else if stopReason == .cancelled {
            status = .cancelled
        } else if count(.failed) + count(.timedOut) > 0 {
            status = .failed
        } else if count(.cancelled) > 0, record.hasCancellationThatMatters() {
            status = .cancelled
        } else {
            status = .succeeded
        }
    }

    /// The outcome of the job `id`, or nil when the workflow has no such job.
    public func outcome(of id: JobID) -> JobOutcome? {
        record.job(id).map { record.outcome(of: $0) }
    }

    /// Every job's outcome, in the order the jobs were added: the workflow's, then the children
    /// added while it ran.
    public var outcomes: Outcomes { Outcomes(record: record) }

    /// The result of a job that succeeded, or nil.
    public func value<T: Sendable>(of handle: JobHandle<T>) -> T? {
        guard let job = record.job(for: handle), record.jobs[Int(job)].phase == .succeeded else { return nil }
        if T.self == Void.self { return () as? T }
        return Int(job) < record.values.count ? record.values[Int(job)] as? T : nil
    }

    /// How many jobs ended with `status`.
    public func count(_ status: JobStatus) -> Int {
        let count = JobPhase.allCases.filter { $0.isTerminal && $0.status == status }.reduce(0) { $0 + record.counts[$1] }
        switch status {
        case .succeeded: return count - record.upToDate.count
        case .upToDate: return record.upToDate.count
        default: return count
        }
    }

    /// The outcomes of a run, in the order the jobs were added, made as they are read.
    public struct Outcomes: RandomAccessCollection, Sendable {
        let record: RunRecord
        public var startIndex: Int { 0 }
        public var endIndex: Int { record.jobs.count }
        public subscript(position: Int) -> JobOutcome { record.outcome(of: Int32(position)) }
    }
}

/// The final state of a run's jobs, shared by every copy of its report.
final class RunRecord: Sendable {
    let plan: Plan
    let jobs: [JobState]
    let values: [(any Sendable)?]
    let failures: [Int32: FailureRecord]
    let counts: PhaseCounts
    let dynamic: DynamicJobs
    let upToDate: Set<Int32>
    private let path = Locked<[CriticalPath.Step]?>(nil)

    init(_ state: SchedulerState) {
        upToDate = state.upToDate
        plan = state.plan
        jobs = state.jobs
        values = state.values
        failures = state.failures
        counts = state.counts
        dynamic = state.dynamic
    }

    func job(_ id: JobID) -> Int32? { plan.job(id) ?? dynamic.lookup[id] }

    func job<T>(for handle: JobHandle<T>) -> Int32? {
        if handle.index >= 0, Int(handle.index) < jobs.count, id(of: Int(handle.index)) == handle.id { return handle.index }
        return job(handle.id)
    }

    /// Whether a cancelled job is not a child whose parent succeeded: a parent that succeeded
    /// dealt with its children's cancellations (a retried attempt's children, say).
    func hasCancellationThatMatters() -> Bool {
        jobs.indices.contains { job in
            guard jobs[job].phase == .cancelled else { return false }
            guard job >= plan.count else { return true }
            return jobs[Int(dynamic.parents[job - plan.count])].phase != .succeeded
        }
    }

    func needs(of job: Int) -> [Int] {
        job < plan.count ? plan.needRange(of: job).map { Int(plan.needs[$0]) } : dynamic.needs[job - plan.count].map(Int.init)
    }

    func lane(of job: Int) -> Int? {
        let lane = job < plan.count ? plan.lane(of: job) : dynamic.lanes[job - plan.count]
        return lane >= 0 ? Int(lane) : nil
    }

    /// The run's critical path (see ``CriticalPath``), worked out when first asked for.
    func criticalPath() -> [CriticalPath.Step] {
        if let known = path.withLock({ $0 }) { return known }
        let schedule = Schedule(
            count: jobs.count,
            startedAt: { [jobs] in jobs[$0].startedAt >= 0 ? jobs[$0].startedAt : nil },
            endedAt: { [jobs] in jobs[$0].endedAt },
            needs: needs(of:),
            lane: lane(of:),
            parent: { [plan, dynamic] in $0 < plan.count ? nil : Int(dynamic.parents[$0 - plan.count]) },
            tookNoTime: { [plan, upToDate] in upToDate.contains(Int32($0)) || plan.isRestored($0) })
        let steps = schedule.criticalPath(id: { id(of: $0) }, laneName: { lane(of: $0).map { plan.lanes[$0].name } })
        path.withLock { $0 = steps }
        return steps
    }
}

extension Plan {
    /// The index of the job a handle refers to, checking the handle belongs to this workflow.
    func job<T>(for handle: JobHandle<T>) -> Int32? {
        if handle.index >= 0, Int(handle.index) < count, ids[Int(handle.index)] == handle.id { return handle.index }
        return job(handle.id)
    }
}
