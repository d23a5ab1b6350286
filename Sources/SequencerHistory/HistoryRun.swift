/// A run as every history tells it: the journal's (`sequencer run`) and a queue's
/// (`sequencer run --queue`, SQLite or PostgreSQL) alike. Times are nanoseconds since 1970.
public struct HistoryRun: Sendable, Hashable {
    public var id: Int64
    /// The workflow's name in its history: a journal names a workflow file by its absolute
    /// path, a queue by its directory's name.
    public var workflow: String
    /// Where a queue's run was submitted from (`HOST:PATH`); nil for a journal's.
    public var origin: String?
    /// What its submitter kept with it (the command line: its options, as JSON).
    public var info: String?
    public var state: RunState
    public var startedAt: Int64
    /// When its last job ended, once it has ended.
    public var endedAt: Int64?
    /// How many times it was started: 1, plus one per resume.
    public var sessions: Int
    public var counts: JobCounts

    public init(
        id: Int64, workflow: String, origin: String? = nil, info: String? = nil, state: RunState, startedAt: Int64,
        endedAt: Int64?, sessions: Int = 1, counts: JobCounts
    ) {
        (self.id, self.workflow, self.origin, self.info, self.state) = (id, workflow, origin, info, state)
        (self.startedAt, self.endedAt, self.sessions, self.counts) = (startedAt, endedAt, sessions, counts)
    }

    /// From its first start to its last end, in seconds; nil while it has not ended.
    public var duration: Double? { endedAt.map { Double($0 - startedAt) / 1e9 } }
}

/// A job of a run, as its last record says.
public struct HistoryJob: Sendable, Hashable {
    public var name: String
    /// Its place in the run: the order it was submitted or declared in.
    public var position: Int
    public var state: JobState
    /// Why it did not succeed, as a `JobError.Code` (`exit`, `timedOut`, ...); nil otherwise.
    public var code: String?
    public var error: String?
    /// How many attempts it made (0 for one that never started).
    public var attempts: Int
    public var startedAt: Int64?
    public var endedAt: Int64?
    /// The job that added it while it ran (a child job).
    public var parent: String?
    /// Its durable job's ID, in a queue's runs.
    public var queueID: Int64?
    /// Why its up-to-date check had it run (`--explain`'s words); nil when it was not checked,
    /// was up to date, or its history does not keep checks (a queue's).
    public var reason: String?
    /// Its fingerprint when it was checked.
    public var fingerprint: String?

    public init(
        name: String, position: Int, state: JobState, code: String? = nil, error: String? = nil, attempts: Int,
        startedAt: Int64? = nil, endedAt: Int64? = nil, parent: String? = nil, queueID: Int64? = nil
    ) {
        (self.name, self.position, self.state, self.code, self.error) = (name, position, state, code, error)
        (self.attempts, self.startedAt, self.endedAt, self.parent, self.queueID) = (attempts, startedAt, endedAt, parent, queueID)
    }

    /// How long its last start lasted, in seconds; nil when it has not both started and ended.
    public var duration: Double? {
        guard let startedAt, let endedAt else { return nil }
        return Double(endedAt - startedAt) / 1e9
    }
}

/// One attempt of a job.
public struct HistoryAttempt: Sendable, Hashable {
    /// The job's name.
    public var job: String
    /// 1 for the first.
    public var attempt: Int
    public var startedAt: Int64
    public var endedAt: Int64
    /// How it ended, for people: `exit code 3`, `killed by SIGTERM`, `up to date`.
    public var exit: String
    public var exitCode: Int?
    /// The signal that ended its process, when one did.
    public var signal: Int?
    /// The worker that ran it, in a queue's runs.
    public var worker: String?
    /// The file its output was kept in, in a journal's runs (a queue keeps it in the queue:
    /// ``RunHistory/output(of:in:last:)`` reads both).
    public var outputFile: String?
    /// Whether its worker refused to run it (a queue's runs): the worker's copy of the workflow
    /// was another (another version, or another project of the same name), so the job went
    /// back to the queue. ``exit`` says why.
    public var refused = false

    public init(
        job: String, attempt: Int, startedAt: Int64, endedAt: Int64, exit: String, exitCode: Int? = nil, signal: Int? = nil,
        worker: String? = nil, outputFile: String? = nil
    ) {
        (self.job, self.attempt, self.startedAt, self.endedAt, self.exit) = (job, attempt, startedAt, endedAt, exit)
        (self.exitCode, self.signal, self.worker, self.outputFile) = (exitCode, signal, worker, outputFile)
    }

    public var duration: Double { Double(endedAt - startedAt) / 1e9 }
}

extension HistoryAttempt {
    /// How an attempt whose job was restored from the shared output cache ends (its ``exit``),
    /// in every history: it ran nothing, and its outputs are those a run with the same key
    /// stored. ``restoredKey`` reads the key back.
    public static func restoredExit(key: String) -> String { restoredPrefix + key + ")" }

    /// The cache key its job's outputs were restored from, when they were (see
    /// ``restoredExit(key:)``); nil for an attempt that ran.
    public var restoredKey: String? {
        guard exit.hasPrefix(Self.restoredPrefix), exit.hasSuffix(")") else { return nil }
        let key = exit.dropFirst(Self.restoredPrefix.count).dropLast()
        return key.isEmpty || key.contains(where: { $0 == " " || $0 == ")" }) ? nil : String(key)
    }

    private static let restoredPrefix = "restored from the cache (key "
}
