/// A coalescing key used in a run: its number, the first job that used it, and the result type
/// every job with the key must share (they all receive the same value).
struct CoalescingKey: Sendable {
    let id: Int32
    let firstJob: JobID
    let valueType: ObjectIdentifier?

    /// Records `job`'s use of `key` and returns the key's number, or throws when an earlier job
    /// with the key returns another type.
    @discardableResult
    static func check(_ key: String, job: JobID, type: ObjectIdentifier?, in keys: inout [String: CoalescingKey]) throws -> Int32 {
        // One hash lookup: the key is inserted as new, or the entry found is read.
        let new = CoalescingKey(id: Int32(keys.count), firstJob: job, valueType: type)
        let first = { (entry: inout CoalescingKey) in entry }(&keys[key, default: new])
        if first.id != new.id { try first.check(key, job: job, type: type) }
        return first.id
    }

    /// Throws when `job`, which uses this key, returns another type than the key's first job.
    func check(_ key: String, job: JobID, type: ObjectIdentifier?) throws {
        guard valueType != type else { return }
        throw WorkflowError(
            code: .invalidOption,
            message: "jobs '\(firstJob)' and '\(job)' share coalescing key '\(key)' but return different types; jobs that share a key share one result",
            jobs: [firstJob, job])
    }
}
