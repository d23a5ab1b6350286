/// The names of the attributes on Sequencer's spans: a run's and its jobs' (``RunTraces``), and
/// a durable queue's enqueues and attempts (`DurableQueue`). One list, so that a job's ID is
/// `sequencer.job.id` wherever its span was made.
public enum SpanAttributes {
    // A run (RunTraces' root span).
    public static let runStatus = "sequencer.run.status"
    public static let runJobs = "sequencer.run.jobs"
    public static let notStarted = "sequencer.run.not_started"
    public static let criticalPath = "sequencer.run.critical_path_ms"

    // A job, in a run or in a queue.
    public static let jobID = "sequencer.job.id"
    public static let jobStatus = "sequencer.job.status"
    public static let attempts = "sequencer.job.attempts"
    public static let restored = "sequencer.job.restored"
    public static let critical = "sequencer.job.critical"

    // A queue's job (its attempt's span) and an enqueue's.
    public static let attempt = "sequencer.job.attempt"
    public static let kind = "sequencer.job.kind"
    public static let lane = "sequencer.job.lane"
    public static let count = "sequencer.jobs.count"
}
