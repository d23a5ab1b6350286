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
        guard let first = keys[key] else {
            let id = Int32(keys.count)
            keys[key] = CoalescingKey(id: id, firstJob: job, valueType: type)
            return id
        }
        try first.check(key, job: job, type: type)
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
