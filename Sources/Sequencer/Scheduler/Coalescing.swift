/// Coalescing's own state: the keys in use and each key's run.
///
/// In a run, a key lives as long as the run: a job with the key taken after its leader ended
/// gets the leader's result. In a queue, a key lives while a job that has it has not ended
/// (``retain(_:)`` / ``release(_:)``): once none is left the key is forgotten, and the next job
/// with it runs the work again. So a queue keeps no key it no longer needs.
struct Coalescing {
    /// The workflow's keys, numbered when its jobs were added.
    private let planKeys: InternedKeys
    /// The keys in use, by name: built from `planKeys` the first time a job added at run time has
    /// a key, so that a run whose keys are all the workflow's hashes none of them again.
    private var byName: [String: CoalescingKey]?
    /// Each key's run, by key number; empty while no job has a key.
    private var runs: [CoalescedRun?]
    /// A queue's count of unfinished jobs per key number, and each key's name.
    private var live: [Int32] = []
    private var names: [String] = []
    /// Key numbers free for reuse (a queue's forgotten keys).
    private var free: [Int32] = []

    init(keys: InternedKeys) {
        planKeys = keys
        runs = [CoalescedRun?](repeating: nil, count: keys.count)
    }

    /// The keys in use, by name; `ids` are the plan's job IDs.
    func keys(ids: [JobID]) -> [String: CoalescingKey] { byName ?? planKeys.byName(ids: ids) }

    /// The key named `key`, if a job used it; `ids` are the plan's job IDs.
    mutating func known(_ key: String, ids: [JobID]) -> CoalescingKey? {
        if byName == nil { byName = planKeys.byName(ids: ids) }
        return byName?[key]
    }

    var isEmpty: Bool { runs.isEmpty }

    subscript(key: Int32) -> CoalescedRun? {
        get { runs[Int(key)] }
        // In place: a run's joiners grow one by one, and a copy per join would cost O(joiners).
        _modify { yield &runs[Int(key)] }
    }

    /// Records a job's use of `key` and returns the key's number.
    /// - Throws: ``WorkflowError`` when an earlier job with the key returns another type.
    mutating func use(_ key: String, job: JobID, type: ObjectIdentifier?, ids: [JobID]) throws -> Int32 {
        if let known = known(key, ids: ids) {
            try known.check(key, job: job, type: type)
            return known.id
        }
        let number = free.popLast() ?? Int32(runs.count)
        if Int(number) == runs.count { runs.append(nil) }
        byName?[key] = CoalescingKey(id: number, firstJob: job, valueType: type)
        return number
    }

    /// A queue's job with key `number` was added.
    mutating func retain(_ number: Int32, name: String) {
        while live.count <= Int(number) {
            live.append(0)
            names.append("")
        }
        live[Int(number)] += 1
        names[Int(number)] = name
    }

    /// A queue's job with key `number` ended. Returns true when no job that has the key is
    /// left: then the key is forgotten (the caller drops its run).
    mutating func release(_ number: Int32) -> Bool {
        live[Int(number)] -= 1
        guard live[Int(number)] == 0 else { return false }
        byName?[names[Int(number)]] = nil
        free.append(number)
        return true
    }

    /// The jobs waiting for a leader.
    var joiners: [Int32] { runs.lazy.compactMap { $0 }.flatMap(\.joiners) }

    /// The runs that satisfy `condition`.
    func runs(where condition: (CoalescedRun) -> Bool) -> [CoalescedRun] {
        runs.compactMap { $0 }.filter(condition)
    }
}
