/// A workflow's coalescing keys, numbered as jobs are added: each key is hashed once, and from
/// then on the plan and the scheduler know it by number.
///
/// Keys are numbered in batches, as job IDs are indexed (see `Workflow+Names.swift`): `add`
/// only appends, and every few hundred keys the new ones are hashed, their slots read, then
/// inserted, so that the cache misses of a batch overlap. The keys added since the last batch
/// are numbered when the workflow is compiled (``resolved()``), in a small tail of their own,
/// so that the workflow's arrays are shared with the plan, not copied.
///
/// Jobs that share a key must return the same type. The first job that does not is noted as it
/// is numbered, and reported when the workflow is compiled (``checkTypes(ids:)``), with the other
/// problems that depend on every job.
struct InternedKeys: Sendable {
    /// Each job's key number, -1 when it has none, or ``pending`` until its batch; empty while no
    /// job has a key.
    private var ofJob: [Int32] = []
    /// Each key's name, the first job with it and its result type, by key number.
    private var names: [String] = []
    private var firstJobs: [Int32] = []
    private var types: [ObjectIdentifier?] = []
    private var index = NameIndex<String>()
    /// The keys added since the last batch, with their jobs and types.
    private var waiting: [(key: String, job: Int32, type: ObjectIdentifier?)] = []
    /// The numbers of the keys that were waiting when the workflow was compiled (see
    /// ``resolved()``), by job, and the keys they made, numbered after `names`.
    private var tail: [Int32: Int32] = [:]
    private var tailKeys: [(name: String, firstJob: Int32, type: ObjectIdentifier?)] = []
    /// The first job numbered whose result type differs from the type of its key's first job.
    private var mismatch: (job: Int32, key: Int32, type: ObjectIdentifier?)?

    private static let pending: Int32 = -2

    /// How many distinct keys the jobs use.
    var count: Int { names.count + tailKeys.count }

    /// Records the key of job `job`, the next job added (nil when it has none), and the type its
    /// body returns.
    mutating func add(_ key: String?, job: Int32, type: ObjectIdentifier?) {
        guard let key else {
            if !ofJob.isEmpty { ofJob.append(-1) }
            return
        }
        if ofJob.isEmpty { ofJob = [Int32](repeating: -1, count: Int(job)) }
        ofJob.append(Self.pending)
        waiting.append((key, job, type))
        if waiting.count >= NameBatches.batchSize { numberWaiting() }
    }

    /// Numbers the waiting keys, in the order they were added: each step runs over the whole
    /// batch before the next (hash all, read all first slots, insert all).
    private mutating func numberWaiting() {
        index.reserveCapacity(names.count + waiting.count)
        let hashes = waiting.map { NameIndex<String>.hash($0.key) }
        index.touch(hashes)
        for (entry, hash) in zip(waiting, hashes) {
            let number = Int32(names.count)
            names.append(entry.key)
            if let known = index.insert(number, hash: hash, ids: names) {
                names.removeLast()
                ofJob[Int(entry.job)] = known
                noteType(entry.type, of: entry.job, key: known, expected: types[Int(known)])
            } else {
                firstJobs.append(entry.job)
                types.append(entry.type)
                ofJob[Int(entry.job)] = number
            }
        }
        waiting.removeAll(keepingCapacity: true)
    }

    /// The keys with every job's key numbered: those still waiting get numbers in a tail, looked
    /// up without adding to the shared arrays (which would copy them).
    func resolved() -> InternedKeys {
        guard !waiting.isEmpty else { return self }
        var keys = self
        keys.waiting = []
        var tailIndex: [String: Int32] = [:]
        for entry in waiting {
            let number: Int32
            if let known = index.find(entry.key, in: names) ?? tailIndex[entry.key] {
                number = known
                keys.noteType(entry.type, of: entry.job, key: known, expected: keys.type(of: known))
            } else {
                number = Int32(names.count + keys.tailKeys.count)
                tailIndex[entry.key] = number
                keys.tailKeys.append((entry.key, entry.job, entry.type))
            }
            keys.tail[entry.job] = number
        }
        return keys
    }

    private mutating func noteType(_ type: ObjectIdentifier?, of job: Int32, key: Int32, expected: ObjectIdentifier?) {
        if mismatch == nil, expected != type { mismatch = (job, key, type) }
    }

    /// The key number of job `job`, if it has a key. The keys must be ``resolved()``.
    func key(of job: Int) -> Int32? {
        guard !ofJob.isEmpty else { return nil }
        let number = ofJob[job]
        if number == Self.pending { return tail[Int32(job)] }
        return number >= 0 ? number : nil
    }

    private func name(of key: Int32) -> String {
        Int(key) < names.count ? names[Int(key)] : tailKeys[Int(key) - names.count].name
    }

    private func type(of key: Int32) -> ObjectIdentifier? {
        Int(key) < names.count ? types[Int(key)] : tailKeys[Int(key) - names.count].type
    }

    private func firstJob(of key: Int32) -> Int32 {
        Int(key) < names.count ? firstJobs[Int(key)] : tailKeys[Int(key) - names.count].firstJob
    }

    /// Throws ``WorkflowError`` when two jobs with one key return different types (jobs that share
    /// a key share one result), naming the first such job numbered. `ids` are the workflow's job
    /// IDs. The keys must be ``resolved()``.
    func checkTypes(ids: [JobID]) throws {
        guard let (job, key, type) = mismatch else { return }
        try coalescingKey(key, ids: ids).check(name(of: key), job: ids[Int(job)], type: type)
    }

    /// The keys by name, for the keys that jobs added at run time use.
    func byName(ids: [JobID]) -> [String: CoalescingKey] {
        var keys = [String: CoalescingKey](minimumCapacity: count)
        for number in 0..<Int32(count) { keys[name(of: number)] = coalescingKey(number, ids: ids) }
        return keys
    }

    private func coalescingKey(_ number: Int32, ids: [JobID]) -> CoalescingKey {
        CoalescingKey(id: number, firstJob: ids[Int(firstJob(of: number))], valueType: type(of: number))
    }
}
