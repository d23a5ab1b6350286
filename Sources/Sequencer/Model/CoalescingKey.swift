/// The first job that used a coalescing key, and the result type every job with the key must
/// share (they all receive the same value).
struct CoalescingKey: Sendable {
    let firstJob: JobID
    let valueType: ObjectIdentifier?

    /// Records `job`'s use of `key`, or throws when an earlier job with the key returns another type.
    static func check(_ key: String, job: JobID, type: ObjectIdentifier?, in keys: inout [String: CoalescingKey]) throws {
        guard let first = keys[key] else {
            keys[key] = CoalescingKey(firstJob: job, valueType: type)
            return
        }
        guard first.valueType == type else {
            throw WorkflowError(
                code: .invalidOption,
                message: "jobs '\(first.firstJob)' and '\(job)' share coalescing key '\(key)' but return different types; jobs that share a key share one result",
                jobs: [first.firstJob, job])
        }
    }
}
