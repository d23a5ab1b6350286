/// Jobs added while the run runs (children), numbered after the plan's jobs: job
/// `plan.count + k` is entry `k`. Read and written under the run's lock.
struct DynamicJobs {
    var ids: [JobID] = []
    var bodies: [any JobBody] = []
    var options: [JobOptions?] = []
    var hasValue: [Bool] = []
    /// The job that added each one.
    var parents: [Int32] = []
    /// What each one needs: jobs added before it, so needs alone form no cycle; `addChild`
    /// rejects a need that waits for the child's ancestors (see `waitPath(from:to:seen:)`).
    var needs: [[Int32]] = []
    /// Each one's lane, by position in the plan's lanes, or -1.
    var lanes: [Int32] = []
    /// Each one's coalescing key number, or -1.
    var keys: [Int32] = []
    var lookup: [JobID: Int32] = [:]
    /// Jobs added at run time that need a job (of the plan, or added at run time).
    var dependents: [Int32: [Int32]] = [:]

}

/// A job's children: every one it added and how many have not ended.
struct ChildGroup {
    var children: [Int32] = []
    var unfinished = 0
    /// The parent body's waits: the child each waits for (-1 for all of them).
    var waiters: [(target: Int32, continuation: CheckedContinuation<Void, Never>)] = []
}

/// A run-time view of one job: what a worker needs to run it.
struct JobSpec: Sendable {
    let body: any JobBody
    let options: JobOptions?
    let priority: Priority
}

extension SchedulerState {
    /// The ID of any job, of the plan or added at run time.
    func id(of job: Int32) -> JobID { id(of: Int(job)) }

    /// The position of the job `id`, of the plan or added at run time.
    func job(_ id: JobID) -> Int32? {
        plan.job(id) ?? dynamic.lookup[id]
    }

    /// What a worker needs to run a job added at run time.
    func spec(of job: Int32) -> JobSpec {
        let entry = Int(job) - plan.count
        return JobSpec(body: dynamic.bodies[entry], options: dynamic.options[entry], priority: jobs[Int(job)].priority)
    }

    func hasValue(_ job: Int32) -> Bool {
        Int(job) < plan.count ? plan.hasValue(Int(job)) : dynamic.hasValue[Int(job) - plan.count]
    }

    func parent(of job: Int32) -> Int32 {
        Int(job) < plan.count ? -1 : dynamic.parents[Int(job) - plan.count]
    }
}
