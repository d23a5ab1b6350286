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
///
/// A report keeps the jobs' results, outcomes and needs, not their bodies: keeping it (on the
/// object whose methods the jobs call, say) keeps nothing the bodies captured alive.
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
        guard let job = record.job(for: handle), record.jobs[job].phase == .succeeded else { return nil }
        if T.self == Void.self { return () as? T }
        return record.value(of: job) as? T
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
        public subscript(position: Int) -> JobOutcome { record.outcome(of: record.jobs.number(at: position)) }
    }
}

/// The final state of a run's jobs, shared by every copy of its report.
final class RunRecord: Sendable {
    let plan: Plan
    let jobs: JobTable
    let values: [(any Sendable)?]
    let failures: [Int32: FailureRecord]
    let counts: PhaseCounts
    let added: AddedJobs
    let upToDate: Set<Int32>
    let laneNames: [String]
    private let path = Locked<[CriticalPath.Step]?>(nil)

    init<Waiter>(_ state: SchedulerState<Waiter>) {
        upToDate = state.upToDate
        // Without the bodies: a report is often kept by the object whose methods the bodies
        // call, and must not keep that object alive through them. (Added jobs let go of
        // theirs as they ended.)
        plan = state.plan.withoutBodies()
        jobs = state.jobs
        values = state.values
        failures = state.failures
        counts = state.counts
        added = state.added
        laneNames = state.lanes.map(\.name)
    }

    func job(_ id: JobID) -> Int32? { plan.job(id) ?? added.job(named: id) }

    func value(of job: Int32) -> (any Sendable)? {
        guard !plan.contains(job) else { return Int(job) < values.count ? values[Int(job)] : nil }
        return added.values[job]
    }

    func job<T>(for handle: JobHandle<T>) -> Int32? {
        if jobs.contains(handle.index), id(of: handle.index) == handle.id { return handle.index }
        return job(handle.id)
    }

    /// Whether a cancelled job is not a child whose parent succeeded: a parent that succeeded
    /// dealt with its children's cancellations (a retried attempt's children, say).
    func hasCancellationThatMatters() -> Bool {
        jobs.numbers.contains { job in
            guard jobs[job].phase == .cancelled else { return false }
            guard !plan.contains(job) else { return true }
            guard let parent = added[job].parent, jobs.contains(parent) else { return true }
            return jobs[parent].phase != .succeeded
        }
    }

    // The critical path works on positions among the jobs kept (the job numbers of a run; a
    // queue's are offset by the jobs it forgot).

    func needs(of position: Int) -> [Int] {
        let job = jobs.number(at: position)
        let needs = plan.contains(job) ? plan.needRange(of: Int(job)).map { plan.needs[$0] } : added[job].needs
        return needs.compactMap { jobs.position(of: $0) }
    }

    func lane(of position: Int) -> Int? {
        let job = jobs.number(at: position)
        return plan.contains(job) ? plan.lane(of: Int(job)) : added[job].lane
    }

    /// The run's critical path (see ``CriticalPath``), worked out when first asked for.
    func criticalPath() -> [CriticalPath.Step] {
        if let known = path.withLock({ $0 }) { return known }
        let schedule = Schedule(
            count: jobs.count,
            startedAt: { [jobs] in jobs[jobs.number(at: $0)].startedAt },
            endedAt: { [jobs] in jobs[jobs.number(at: $0)].endedAt },
            needs: needs(of:),
            lane: lane(of:),
            parent: { [plan, added, jobs] in
                let job = jobs.number(at: $0)
                return plan.contains(job) ? nil : added[job].parent.flatMap { jobs.position(of: $0) }
            },
            tookNoTime: { [plan, upToDate, jobs] in
                let job = jobs.number(at: $0)
                return upToDate.contains(job) || plan.isRestored(Int(job))
            })
        let steps = schedule.criticalPath(id: { id(of: jobs.number(at: $0)) }, laneName: { lane(of: $0).map { laneNames[$0] } })
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
