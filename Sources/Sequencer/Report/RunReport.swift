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
    /// ended last, the job it waited for that ended last, and so on back to a job that waited
    /// for none.
    public let criticalPath: [JobID]
    let record: RunRecord

    init(record: RunRecord, stopReason: StopReason?, duration: Duration) {
        self.record = record
        self.duration = duration
        criticalPath = record.criticalPath()
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
        case .skipped: return count + record.upToDate.count
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

    private func needs(of job: Int) -> [Int] {
        job < plan.count ? plan.needRange(of: job).map { Int(plan.needs[$0]) } : dynamic.needs[job - plan.count].map(Int.init)
    }

    private func dependents(of job: Int) -> [Int] {
        var dependents = job < plan.count ? plan.dependentRange(of: job).map { Int(plan.dependents[$0]) } : []
        if let added = dynamic.dependents[Int32(job)] { dependents += added.map(Int.init) }
        return dependents
    }

    /// Walks back from the job that ended last through the need (or, in a serial lane, the
    /// lane predecessor) that ended last before it started.
    /// - Complexity: O(jobs) to find the last job, then O(needs) along the path.
    func criticalPath() -> [JobID] {
        func endedAt(_ job: Int) -> Int64 { jobs[job].endedAt }
        guard var job = jobs.indices.max(by: { endedAt($0) < endedAt($1) }), endedAt(job) >= 0 else { return [] }
        // Jobs that took no time can end at the same moment as a job they needed: the path
        // ends at the last of them.
        var moved = true
        while moved {
            moved = false
            for dependent in dependents(of: job) {
                if endedAt(dependent) == endedAt(job), jobs[dependent].startedAt >= endedAt(job) {
                    job = dependent
                    moved = true
                    break
                }
            }
        }
        var path = [id(of: job)]
        while true {
            var best = -1
            var candidates = needs(of: job)
            if let previous = lanePredecessor(of: job) { candidates.append(previous) }
            for candidate in candidates where endedAt(candidate) >= 0 && endedAt(candidate) <= jobs[job].startedAt {
                if best < 0 || endedAt(candidate) > endedAt(best) { best = candidate }
            }
            guard best >= 0, path.count <= jobs.count else { break }
            job = best
            path.append(id(of: job))
        }
        return path.reversed()
    }

    private func lanePredecessor(of job: Int) -> Int? {
        guard job < plan.count else { return nil }
        let lane = plan.lane(of: job)
        guard lane >= 0, plan.lanes[Int(lane)].width == 1 else { return nil }
        let members = plan.lanes[Int(lane)].members
        guard let position = members.firstIndex(of: Int32(job)), position > 0 else { return nil }
        return Int(members[position - 1])
    }
}

extension Plan {
    /// The index of the job a handle refers to, checking the handle belongs to this workflow.
    func job<T>(for handle: JobHandle<T>) -> Int32? {
        if handle.index >= 0, Int(handle.index) < count, ids[Int(handle.index)] == handle.id { return handle.index }
        return job(handle.id)
    }
}
