/// A cache of jobs' outputs that a ``ShellWorkflow`` asks before a job runs, and tells after it
/// succeeded (`WorkflowCache` in `SequencerBuild` keeps them in a `SequencerCache` store).
public protocol ShellJobCache: Sendable {
    /// The variables `job` runs with, when it is cached: its closed environment (the file's and
    /// its own, and a base set from `inherited`). Nil when it is not cached: it then runs with
    /// `inherited`, the file's and its own, as without a cache.
    func environment(of job: WorkflowFile.Job, inherited: [String: String]) -> [String: String]?

    /// Called before each attempt of `job`, once the up-to-date check said it runs.
    /// - Parameter printedPath: where a restored job's printed output goes (the attempt's
    ///   output file).
    func lookUp(_ job: WorkflowFile.Job, printedPath: String) async -> ShellCacheLookup
}

/// What a cache said about a job about to run.
public enum ShellCacheLookup: Sendable {
    /// The job is not cached (no outputs, `cache: false`, `inherit-env`).
    case uncached
    /// Its outputs were restored from the cache, and its printed output written to the
    /// attempt's file: it does not run. `key` names the entry, for people.
    case restored(key: String)
    /// The cache has no complete entry: the job runs, and `store` is called if it succeeds,
    /// with its output file and how long it ran; `abandon` if it does not (a claim on its key
    /// is given up, for a runner waiting on it).
    case missed(store: @Sendable (_ printedPath: String, _ duration: Duration) async -> Void, abandon: @Sendable () async -> Void)
}
