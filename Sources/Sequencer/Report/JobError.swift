/// Why a job did not succeed: the error it threw, or why it was skipped or cancelled,
/// and the path of jobs the failure travelled through.
///
/// ```swift
/// if let error = report.outcome(of: "whats-new")?.error {
///     print(error.path)        // ["fetch-config", "whats-new"]
///     print(error.underlying)  // the error fetch-config threw
/// }
/// ```
public struct JobError: Error, Sendable, CustomStringConvertible {
    /// What kind of reason this is. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// The job's body threw.
        public static let failed = Code(name: "failed")
        /// The job, or the run, was cancelled.
        public static let cancelled = Code(name: "cancelled")
        /// The job's own timeout passed.
        public static let timedOut = Code(name: "timedOut")
        /// The run's deadline passed before the job finished or started.
        public static let deadlineExceeded = Code(name: "deadlineExceeded")
        /// A job it needs did not succeed, so it never started.
        public static let neededJobFailed = Code(name: "neededJobFailed")
        /// Another job failed and the run stopped starting jobs (it does not keep going).
        public static let runStopped = Code(name: "runStopped")
        /// Not an error: the job was up to date. No longer set on outcomes, whose status is
        /// now ``JobStatus/upToDate``; kept so that code naming it still builds.
        @available(*, deprecated, message: "an up-to-date job's status is JobStatus.upToDate, and its error is nil")
        public static let upToDate = Code(name: "upToDate")
    }

    /// What kind of reason this is.
    public let code: Code
    /// The error thrown where the failure started, if a body threw one.
    public let underlying: (any Error)?
    /// The jobs the failure travelled through: where it started first, this job last.
    public let path: [JobID]

    /// The job where the failure started.
    public var origin: JobID? { path.first }

    public var description: String {
        let job = path.last.map { "'\($0)'" } ?? "job"
        let cause = underlying.map { ": \($0)" } ?? ""
        switch code {
        case .failed: return "\(job) failed\(cause)"
        case .cancelled: return "\(job) was cancelled"
        case .timedOut: return "\(job) timed out"
        case .deadlineExceeded: return "\(job) was stopped by the run's deadline"
        case .runStopped: return "\(job) did not start: the run stopped after '\(path.first?.description ?? "?")' failed"
        default:
            let chain = path.map(\.description).joined(separator: " -> ")
            return "\(job) did not start: needed job '\(path.first?.description ?? "?")' did not succeed\(cause) (\(chain))"
        }
    }
}
