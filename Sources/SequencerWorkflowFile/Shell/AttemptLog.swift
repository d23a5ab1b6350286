import Sequencer
public import SequencerProcess

/// One attempt of a shell job: when its process ran and how it ended.
public struct AttemptRecord: Sendable, Hashable {
    /// The job's name.
    public var job: String
    /// The attempt, counting from 1.
    public var attempt: Int
    /// When the process started, from the run's start.
    public var startedAt: Duration
    /// When the process ended (or could not start), from the run's start.
    public var endedAt: Duration
    /// How the process ended; nil if it could not start.
    public var exit: ProcessExit?
    /// Why the process could not start, if it could not.
    public var startError: String?
    /// The file holding the process's standard output and standard error; there is no such
    /// file when the process printed nothing.
    public var outputPath: String
    /// The cache entry its outputs were restored from (its key, for people), when they were:
    /// the job's command did not run.
    public var restored: String?

    public init(
        job: String, attempt: Int, startedAt: Duration, endedAt: Duration, exit: ProcessExit?, startError: String?,
        outputPath: String, restored: String? = nil
    ) {
        self.restored = restored
        self.job = job
        self.attempt = attempt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.exit = exit
        self.startError = startError
        self.outputPath = outputPath
    }
}

/// Every attempt of every shell job of a run, as they end. Safe to read while the run runs.
public final class AttemptLog: Sendable {
    private struct Records: Sendable {
        var inOrder: [AttemptRecord] = []
        var byJob: [String: [Int]] = [:]
    }

    private let records = Locked(Records())
    private let onAppend: (@Sendable (AttemptRecord) -> Void)?

    /// - Parameter onAppend: called as each attempt ends (on the job's task, after the record
    ///   is stored), for example to print retries.
    public init(onAppend: (@Sendable (AttemptRecord) -> Void)? = nil) {
        self.onAppend = onAppend
    }

    func append(_ record: AttemptRecord) {
        records.withLock {
            $0.byJob[record.job, default: []].append($0.inOrder.count)
            $0.inOrder.append(record)
        }
        onAppend?(record)
    }

    /// Every attempt so far, in the order they ended.
    public var all: [AttemptRecord] { records.withLock { $0.inOrder } }

    /// The attempts of one job so far, in order.
    public func attempts(of job: String) -> [AttemptRecord] {
        records.withLock { records in (records.byJob[job] ?? []).map { records.inOrder[$0] } }
    }
}
