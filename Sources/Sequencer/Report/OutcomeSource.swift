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
    func id(of job: Int) -> JobID {
        job < plan.count ? plan.ids[job] : added[Int32(job)].id
    }

    func id(of job: Int32) -> JobID { id(of: Int(job)) }

    func outcome(of job: Int32) -> JobOutcome {
        let state = jobs[job]
        let parent = Int(job) < plan.count ? nil : id(of: added[job].parent)
        let restored = plan.isRestored(Int(job))
        return JobOutcome(
            id: id(of: Int(job)),
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
        while let current = cause, path.count <= jobs.count {
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
