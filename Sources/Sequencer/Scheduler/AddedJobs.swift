/// A job added while the run runs (a child, or a queue's job), numbered after the plan's jobs.
/// Kept to 96 bytes: what few jobs have (options, a value) is kept beside it, in ``AddedJobs``.
struct AddedJob {
    var id: JobID
    var body: any JobBody
    var hasValue: Bool
    /// The job that added it; nil for a job added to a queue from outside.
    var parent: Int32?
    /// What it needs: jobs added before it, so needs alone form no cycle; `addChild` rejects a
    /// need that waits for the child's ancestors (see `waitPath(from:to:seen:)`).
    var needs: [Int32]
    private var laneNumber: Int32
    var key: Int32?
    /// How many unfinished jobs may still read its result or outcome: dependents that have not
    /// ended, and callers waiting in ``JobQueue/value(of:)``. A queue keeps it while this is not 0.
    var readers: Int32 = 0

    init(id: JobID, body: any JobBody, hasValue: Bool, parent: Int32?, needs: [Int32], lane: Int?, key: Int32?) {
        self.id = id
        self.body = body
        self.hasValue = hasValue
        self.parent = parent
        self.needs = needs
        laneNumber = lane.map { Int32($0) } ?? -1
        self.key = key
    }

    /// Its lane as added (a job that joins a coalesced leader gives its lane slot up).
    var lane: Int? { laneNumber >= 0 ? Int(laneNumber) : nil }
}

/// The jobs added while the run runs (children, and every job of a queue), numbered after the
/// plan's jobs. Read and written under the run's lock.
struct AddedJobs {
    private(set) var entries: Window<AddedJob>
    /// The job each ID names. A queue may reuse the ID of a job that ended: it then names the
    /// newer job.
    private(set) var lookup = NameIndex<JobID>()
    /// Added jobs waiting for a job (of the plan, or added), by the job they wait for.
    var dependents: [Int32: [Int32]] = [:]
    /// The options of the jobs that set any.
    var options: [Int32: JobOptions] = [:]
    /// The results of the jobs that succeeded with one.
    var values: [Int32: any Sendable] = [:]
    /// A queue's jobs that have not ended, by number: where their outcomes go when they end.
    var tickets: [Int32: JobTicket] = [:]

    init(first: Int) { entries = Window(base: Int32(first)) }

    var isEmpty: Bool { entries.isEmpty }

    subscript(job: Int32) -> AddedJob {
        get { entries[job] }
        _modify { yield &entries[job] }
    }

    /// The job `id` names, if any.
    func job(named id: JobID) -> Int32? {
        lookup.find(id) { entries[$0].id }
    }

    /// Adds a job; its ID now names it.
    mutating func append(_ job: AddedJob, options: JobOptions?, as number: Int32) {
        do {
            // A copy for the names, which ends before `entries` grows: appending while it is
            // alive would copy the storage.
            let entries = entries
            lookup.update(number, named: job.id) { entries[$0].id }
        }
        appendClaimed(job, options: options)
    }

    /// Makes `id` name the job `number`, unless it already names a job: then returns false.
    /// One hash lookup for the check and the insertion.
    mutating func claim(_ id: JobID, for number: Int32) -> Bool {
        let entries = entries  // ends with this call, before `entries` grows
        return lookup.insert(number, named: id) { entries[$0].id } == nil
    }

    /// Adds a job whose ID was claimed (see ``claim(_:for:)``).
    mutating func appendClaimed(_ job: AddedJob, options: JobOptions?) {
        entries.append(job)
        if let options { self.options[entries.end &- 1] = options }
    }

    /// Forgets the oldest added job (a queue's, whose number is `number`).
    mutating func dropOldest(_ number: Int32) {
        let id = entries[number].id
        lookup.remove(id, at: number)
        if !options.isEmpty { options[number] = nil }
        if !values.isEmpty { values[number] = nil }
        entries.dropOldest()
    }
}

/// A run-time view of one job: what a worker needs to run it.
struct JobSpec: Sendable {
    let body: any JobBody
    let options: JobOptions?
    let priority: Priority
}

extension SchedulerState {
    /// The position of the job `id`, of the plan or added at run time.
    func job(_ id: JobID) -> Int32? {
        plan.job(id) ?? added.job(named: id)
    }

    /// What a worker needs to run a job added at run time; nil when a queue no longer keeps it
    /// (it was abandoned before its worker got this far, and forgotten since).
    func spec(of job: Int32) -> JobSpec? {
        guard jobs.contains(job) else { return nil }
        let entry = added[job]
        return JobSpec(body: entry.body, options: added.options.isEmpty ? nil : added.options[job], priority: jobs[job].priority)
    }

    func hasValue(_ job: Int32) -> Bool {
        isPlanned(job) ? plan.hasValue(Int(job)) : added[job].hasValue
    }

    /// The job that added `job`, if a job did.
    func parent(of job: Int32) -> Int32? {
        isPlanned(job) ? nil : added[job].parent
    }

    /// Whether a running job added `job` (not the workflow, nor the queue's caller).
    func isChild(_ job: Int32) -> Bool { !isPlanned(job) && added[job].parent != nil }

    /// The jobs `job` needs.
    func needs(of job: Int32) -> [Int32] {
        isPlanned(job) ? plan.needRange(of: Int(job)).map { plan.needs[$0] } : added[job].needs
    }
}
