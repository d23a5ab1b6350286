/// Job states an outcome can be read from: a finished run's record, or the scheduler while the
/// run runs (for a parent reading its children's outcomes).
protocol OutcomeSource {
    var plan: Plan { get }
    var jobs: [JobState] { get }
    var failures: [Int32: FailureRecord] { get }
    var dynamic: DynamicJobs { get }
    var upToDate: Set<Int32> { get }
}

extension OutcomeSource {
    func id(of job: Int) -> JobID {
        job < plan.count ? plan.ids[job] : dynamic.ids[job - plan.count]
    }

    func outcome(of job: Int32) -> JobOutcome {
        let state = jobs[Int(job)]
        let started = state.startedAt >= 0
        let parent = Int(job) < plan.count ? nil : id(of: Int(dynamic.parents[Int(job) - plan.count]))
        let restored = plan.isRestored(Int(job))
        return JobOutcome(
            id: id(of: Int(job)),
            status: status(of: job, state.phase),
            error: error(of: job),
            attempts: restored ? 0 : Int(state.attempts),
            startedAt: started && !restored ? .nanoseconds(state.startedAt) : nil,
            endedAt: started && !restored ? .nanoseconds(state.endedAt) : nil,
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
        var path = [id(of: Int(job))]
        var origin = record
        var cause = record.cause
        while cause >= 0, path.count <= jobs.count {
            path.append(id(of: Int(cause)))
            guard let next = failures[cause] else { break }
            origin = next
            cause = next.cause
        }
        return JobError(code: record.code, underlying: origin.underlying, path: path.reversed())
    }
}

extension RunRecord: OutcomeSource {}
extension SchedulerState: OutcomeSource {}
