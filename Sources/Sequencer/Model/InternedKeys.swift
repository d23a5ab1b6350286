/// A workflow's coalescing keys, numbered as jobs are added: each key is hashed once, when the
/// first job with it is added, and from then on the plan and the scheduler know it by number.
///
/// Jobs that share a key must return the same type. The first job that does not is noted as it
/// is added, and reported when the workflow is compiled (``checkTypes(ids:)``), with the other
/// problems that depend on every job.
struct InternedKeys: Sendable {
    /// Each job's key number, or -1; empty while no job has a key.
    private(set) var ofJob: [Int32] = []
    /// Each key's name, by number.
    private(set) var names: [String] = []
    /// The first job with each key, and its result type, by key number.
    private(set) var firstJobs: [Int32] = []
    private(set) var types: [ObjectIdentifier?] = []
    private var index = NameIndex<String>()
    /// The first job added whose result type differs from the type of its key's first job.
    private var mismatch: (job: Int32, key: Int32, type: ObjectIdentifier?)?

    /// Records the key of job `job`, the next job added (nil when it has none), and the type its
    /// body returns.
    mutating func add(_ key: String?, job: Int32, type: ObjectIdentifier?) {
        guard let key else {
            if !ofJob.isEmpty { ofJob.append(-1) }
            return
        }
        if ofJob.isEmpty { ofJob = [Int32](repeating: -1, count: Int(job)) }
        let number = Int32(names.count)
        names.append(key)
        if let known = index.insert(number, ids: names) {
            names.removeLast()
            ofJob.append(known)
            if mismatch == nil, types[Int(known)] != type { mismatch = (job, known, type) }
        } else {
            firstJobs.append(job)
            types.append(type)
            ofJob.append(number)
        }
    }

    /// The key number of job `job`, if it has a key.
    func key(of job: Int) -> Int32? {
        guard !ofJob.isEmpty, ofJob[job] >= 0 else { return nil }
        return ofJob[job]
    }

    /// Throws ``WorkflowError`` when two jobs with one key return different types (jobs that share
    /// a key share one result), naming the first such job added. `ids` are the workflow's job IDs.
    func checkTypes(ids: [JobID]) throws {
        guard let (job, key, type) = mismatch else { return }
        try coalescingKey(Int(key), ids: ids).check(names[Int(key)], job: ids[Int(job)], type: type)
    }

    /// The keys by name, for the keys that jobs added at run time use.
    func byName(ids: [JobID]) -> [String: CoalescingKey] {
        var keys = [String: CoalescingKey](minimumCapacity: names.count)
        for (number, name) in names.enumerated() { keys[name] = coalescingKey(number, ids: ids) }
        return keys
    }

    private func coalescingKey(_ number: Int, ids: [JobID]) -> CoalescingKey {
        CoalescingKey(id: Int32(number), firstJob: ids[Int(firstJobs[number])], valueType: types[number])
    }
}
