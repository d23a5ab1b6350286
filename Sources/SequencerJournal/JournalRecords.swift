/// A run as the journal keeps it.
public struct JournalRun: Sendable, Codable, Hashable {
    public let id: Int64
    /// The workflow's name: for the command line, the workflow file's path.
    public let workflow: String
    /// What the recorder's caller kept with the run (the command line: its options, as JSON).
    public let info: String?
    /// `running` while it runs, or when its process died; else how it ended (`succeeded`,
    /// `failed`, `cancelled`, `timedOut`).
    public let status: String
    /// Nanoseconds since 1970.
    public let startedAt: Int64
    public let endedAt: Int64?
    public let jobCount: Int
    public let succeeded: Int
    public let failed: Int
    public let skipped: Int
    public let cancelled: Int
    public let timedOut: Int
    /// How many times it was started: 1, plus one per resume.
    public let sessions: Int

    /// A run as another record of runs tells it (a durable queue's, shown by `sequencer serve`).
    package init(
        id: Int64, workflow: String, info: String?, status: String, startedAt: Int64, endedAt: Int64?, jobCount: Int,
        succeeded: Int, failed: Int, skipped: Int, cancelled: Int, timedOut: Int, sessions: Int
    ) {
        (self.id, self.workflow, self.info, self.status, self.startedAt, self.endedAt) = (id, workflow, info, status, startedAt, endedAt)
        (self.jobCount, self.succeeded, self.failed, self.skipped) = (jobCount, succeeded, failed, skipped)
        (self.cancelled, self.timedOut, self.sessions) = (cancelled, timedOut, sessions)
    }

    /// From its first start to its last end, in seconds; nil while it has not ended.
    public var duration: Double? { endedAt.map { Double($0 - startedAt) / 1e9 } }

    /// The status to show: a run that says it is running while nobody records it was
    /// interrupted (its process died). `recording`: whether a process records this run now.
    public func state(recording: Bool) -> String {
        status == "running" && !recording ? "interrupted" : status
    }

    /// The status to show, given the run another process records now
    /// (``SQLiteJournal/recordingRun()``; nil when none): a run that says it is running is
    /// running only if it is that run, whether it is the newest or an older one resumed.
    public func state(recordingRun: Int64?) -> String {
        state(recording: id == recordingRun)
    }
}

/// A job of a run, as the journal keeps it.
public struct JournalJob: Sendable, Codable, Hashable {
    public let name: String
    /// Its position in the run.
    public let position: Int
    /// `running` (it was running when the run's process stopped), or a `JobStatus`
    /// (`upToDate` for a job that was up to date).
    public let status: String
    /// Why it did not succeed (a `JobError.Code`), or nil.
    public let code: String?
    public let error: String?
    public let attempts: Int
    /// Nanoseconds since 1970.
    public let startedAt: Int64?
    public let endedAt: Int64?
    /// The job that added it while it ran.
    public let parent: String?

    /// A job as another record of runs tells it (a durable queue's, shown by `sequencer serve`).
    package init(
        name: String, position: Int, status: String, code: String?, error: String?, attempts: Int, startedAt: Int64?,
        endedAt: Int64?, parent: String?
    ) {
        (self.name, self.position, self.status, self.code, self.error) = (name, position, status, code, error)
        (self.attempts, self.startedAt, self.endedAt, self.parent) = (attempts, startedAt, endedAt, parent)
    }

    public var duration: Double? {
        guard let startedAt, let endedAt else { return nil }
        return Double(endedAt - startedAt) / 1e9
    }
}

/// One attempt of a job, as the command line records it.
public struct JournalAttempt: Sendable, Codable, Hashable {
    public let job: String
    /// 1 for the first.
    public let attempt: Int
    /// Nanoseconds since 1970.
    public let startedAt: Int64
    public let endedAt: Int64
    /// How it ended, for people: `exit code 3`, `killed by SIGTERM`, `succeeded`.
    public let exit: String
    /// The process's exit code, when it exited.
    public let exitCode: Int?
    /// The signal that killed the process, when one did.
    public let signal: Int?
    /// The file holding its output.
    public let output: String?

    public init(
        job: String, attempt: Int, startedAt: Int64, endedAt: Int64, exit: String, exitCode: Int?, signal: Int?,
        output: String?
    ) {
        self.signal = signal
        self.job = job
        self.attempt = attempt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.exit = exit
        self.exitCode = exitCode
        self.output = output
    }
}

/// What says whether a file changed without reading it: its size, modification time and inode.
public struct FileStamp: Sendable, Hashable {
    public let size: Int64
    /// Nanoseconds since 1970.
    public let modified: Int64
    public let inode: Int64

    public init(size: Int64, modified: Int64, inode: Int64) {
        self.size = size
        self.modified = modified
        self.inode = inode
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
