/// Job states an outcome can be read from: a finished run's record, or the scheduler while the
/// run runs (for a parent reading its children's outcomes).
protocol OutcomeSource {
    var plan: Plan { get }
    var jobs: JobTable { get }
    var failures: [Int32: FailureRecord] { get }
    var added: AddedJobs { get }
    var upToDate: Set<Int32> { get }
}

extension OutcomeSource {
    func id(of job: Int32) -> JobID {
        plan.contains(job) ? plan.ids[Int(job)] : added[job].id
    }

    func outcome(of job: Int32) -> JobOutcome {
        let state = jobs[job]
        // A queue may have forgotten the parent of a child it still keeps.
        let parent = plan.contains(job) ? nil : added[job].parent.flatMap { jobs.contains($0) ? id(of: $0) : nil }
        let restored = plan.isRestored(Int(job))
        return JobOutcome(
            id: id(of: job),
            status: status(of: job, state.phase),
            error: error(of: job),
            attempts: restored ? 0 : Int(state.attempts),
            startedAt: restored ? nil : state.startedAt.map { .nanoseconds($0) },
            endedAt: restored || state.startedAt == nil ? nil : .nanoseconds(state.endedAt),
            parent: parent,
            restored: restored)
    }

    /// How the job ended: its phase's status, except that a job that succeeded up to date is `.upToDate`.
    func status(of job: Int32, _ phase: JobPhase) -> JobStatus {
        phase.status(upToDate: isUpToDate(job))
    }

    func isUpToDate(_ job: Int32) -> Bool { !upToDate.isEmpty && upToDate.contains(job) }

    /// The job's failure, following skips back to the job where the failure started.
    func error(of job: Int32) -> JobError? {
        guard let record = failures[job] else { return nil }
        var path = [id(of: job)]
        var origin = record
        var cause = record.cause
        // A queue may have forgotten where a failure started: the path ends at the oldest job kept.
        while let current = cause, jobs.contains(current), path.count <= jobs.count {
            path.append(id(of: current))
            guard let next = failures[current] else { break }
            origin = next
            cause = next.cause
        }
        return JobError(code: record.code, underlying: origin.underlying, path: path.reversed())
    }
}

extension RunRecord: OutcomeSource {}
extension SchedulerState: OutcomeSource {}
