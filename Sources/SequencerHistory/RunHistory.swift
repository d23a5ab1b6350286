public import Foundation

/// Where runs are read from: a journal (``JournalHistory``) or a durable queue, SQLite or
/// PostgreSQL (``QueueHistory``). `sequencer runs`, `show` and the web page read every run
/// through it, so a run means the same, and is counted the same, wherever it was recorded.
public protocol RunHistory: Sendable {
    /// What it is, for people: `journal PATH`, `queue LOCATION` (a password masked).
    var name: String { get }
    /// The states its runs can be in (a queue's are never interrupted, nor timed out).
    var states: [RunState] { get }
    /// Whether a run that did not succeed can be resumed where it stopped (`sequencer resume`).
    var resumes: Bool { get }
    /// How long a reader of a running run waits before it looks again.
    var pollInterval: Duration { get }

    /// The workflow's name in this history for the workflow file at `path`: how ``RunQuery``
    /// and ``HistoryRun/workflow`` name it.
    func workflow(ofFile path: String) -> String

    /// A page of runs, newest first.
    func runs(_ query: RunQuery) async throws -> RunsPage

    /// The run `id` read whole; nil when there is no such run.
    func run(_ id: Int64) async throws -> RunRecord?
    /// The run `id` as a list shows it (its state and counts), without its jobs and attempts;
    /// nil when there is no such run.
    func summary(of id: Int64) async throws -> HistoryRun?

    /// The jobs of run `id` as their last records say (``RunRecord/jobs``), without the rest of
    /// the run: for a job's samples across runs. Empty when there is no such run.
    func jobs(of id: Int64) async throws -> [HistoryJob]

    /// What `attempt` of a job of `record` printed: at most its last `limit` bytes (nil: all).
    func output(of attempt: HistoryAttempt, in record: RunRecord, last limit: Int?) async throws -> AttemptOutput

    /// A number that moves whenever a run may have changed, so that a running run is read again
    /// only then; nil when the history cannot tell (each look reads the run again).
    func version() async throws -> Int?

    /// Cancels a running run. Returns nil when done, else why not, for people.
    func cancel(_ id: Int64) async throws -> String?
    /// Deletes the ended runs of each workflow beyond its newest `keep`, with what they printed
    /// (`sequencer gc`). A run still going is kept, and so is what makes jobs up to date.
    func deleteRuns(keeping keep: Int) async throws -> DeletedRuns

    /// The fingerprints of the last successes of `workflow`'s jobs (see ``workflow(ofFile:)``),
    /// by job name: of the jobs named in `jobs`, or of every job when it is nil. What an
    /// up-to-date check compares a job with; a ``RunWriter`` records them.
    func fingerprints(workflow: String, jobs: [String]?) async throws -> [String: Fingerprint]
}

/// What ``RunHistory/deleteRuns(keeping:)`` deleted.
public struct DeletedRuns: Sendable, Equatable {
    /// The runs, by ID.
    public var runs: [Int64]
    /// The directories of output deleted with them (a journal's runs keep their output in
    /// files; a queue's, with their jobs).
    public var outputDirectories: [String]

    public init(runs: [Int64], outputDirectories: [String] = []) {
        (self.runs, self.outputDirectories) = (runs, outputDirectories)
    }
}

/// Which runs to read.
public struct RunQuery: Sendable, Hashable {
    /// Of this workflow only (see ``RunHistory/workflow(ofFile:)``); nil: of every workflow.
    public var workflow: String?
    /// In this state only; nil: in any.
    public var state: RunState?
    /// Older than this run (the last of the page before); nil: from the newest.
    public var before: Int64?
    public var limit: Int

    public init(workflow: String? = nil, state: RunState? = nil, before: Int64? = nil, limit: Int) {
        (self.workflow, self.state, self.before, self.limit) = (workflow, state, before, limit)
    }
}

/// A page of runs.
public struct RunsPage: Sendable {
    /// Newest first.
    public var runs: [HistoryRun]
    /// How many runs match the query's workflow and state, on every page.
    public var total: Int
    /// The `before` of the next (older) page; nil on the last.
    public var older: Int64?
    /// The workflows that have runs, by name.
    public var workflows: [String]

    public init(runs: [HistoryRun], total: Int, older: Int64?, workflows: [String]) {
        (self.runs, self.total, self.older, self.workflows) = (runs, total, older, workflows)
    }
}

/// What an attempt printed.
public enum AttemptOutput: Sendable, Equatable {
    /// It printed nothing.
    case nothing
    /// Its output is no longer kept: why, for people.
    case gone(String)
    /// The bytes asked for (the end), and how many it printed in all.
    case bytes(Data, size: Int)
}

extension RunHistory {
    /// The newest run of `workflow`; nil when it has none.
    public func latestRun(workflow: String?) async throws -> HistoryRun? {
        try await runs(RunQuery(workflow: workflow, limit: 1)).runs.first
    }
}
