
/// A run read whole: its jobs, their attempts, and its graph.
public struct RunRecord: Sendable {
    public var run: HistoryRun
    /// The jobs the run was started with, in their order (of every session, for a resumed run);
    /// jobs added while it ran (children) are in ``jobs`` only.
    public var names: [String]
    /// The jobs its history has heard of, in their positions' order: a job that never started
    /// may have no record.
    public var jobs: [HistoryJob]
    /// Every attempt, by job, then attempt.
    public var attempts: [HistoryAttempt]
    /// The graph the run recorded when it started; nil when its history keeps none (a queue, or
    /// a journal's run from before graphs were kept): ``workflowFile`` may then give it.
    public var graph: HistoryGraph?
    /// The workflow file the run came from, when it may be on this machine: its graph as it is
    /// now stands in for one the run did not record.
    public var workflowFile: String?
    /// Whether the run checked whether its jobs were up to date, so that each job's
    /// ``HistoryJob/reason`` says why it ran: false when no job of its file declares outputs;
    /// nil when not known (a queue keeps no checks, nor did a journal before schema version 4).
    public var checked: Bool?

    public init(
        run: HistoryRun, names: [String], jobs: [HistoryJob], attempts: [HistoryAttempt], graph: HistoryGraph?, workflowFile: String?,
        checked: Bool? = nil
    ) {
        (self.run, self.names, self.jobs, self.attempts, self.graph, self.workflowFile) = (run, names, jobs, attempts, graph, workflowFile)
        self.checked = checked
    }

    /// Each job's last attempt, by job name.
    public var lastAttempts: [String: HistoryAttempt] {
        Dictionary(attempts.map { ($0.job, $0) }) { a, b in a.attempt > b.attempt || (a.attempt == b.attempt && a.endedAt > b.endedAt) ? a : b }
    }

    /// The cache keys of the jobs that succeeded by a restore from the shared output cache (their
    /// last attempt says so: ``HistoryAttempt/restoredKey``), by job name.
    public var restoredKeys: [String: String] {
        let last = lastAttempts
        var keys: [String: String] = [:]
        for job in jobs where job.state == .succeeded {
            if let key = last[job.name]?.restoredKey { keys[job.name] = key }
        }
        return keys
    }
}
