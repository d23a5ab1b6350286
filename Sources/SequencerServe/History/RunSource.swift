public import Foundation
public import SequencerJournal

/// Where the pages' runs come from: a journal (``RunHistory``) or a durable queue
/// (``QueueRuns``). The runs page, the run page, its graph and its live events, and the job
/// page are made from what a source returns.
public protocol RunSource: Sendable {
    /// What the pages show, for the server's first line: `journal PATH`, `queue LOCATION`.
    var name: String { get }
    /// The states the runs page filters by.
    var states: [String] { get }
    /// Whether a run that did not succeed can be resumed from the page.
    var resumes: Bool { get }
    /// How long a running run's event stream waits before it looks again.
    var pollInterval: Duration { get }

    /// The page of runs older than run `before` (newest first) that match the filters.
    func runsPage(workflow: String?, state: String?, before: Int64?, limit: Int) async throws -> RunHistory.RunsPage

    /// The run `id` as the run page shows it; nil when there is no such run.
    func run(_ id: Int64) async throws -> RunView?

    /// What `attempt` of `job` of run `run` printed: at most its last `limit` bytes (nil: all).
    func output(of attempt: JournalAttempt, job: RunView.Job, run: Int64, last limit: Int?) async throws -> AttemptOutput

    /// A number that moves whenever a run may have changed, so that a running run is read again
    /// only then; nil when the source cannot tell (each look reads the run again).
    func version() async throws -> Int?

    /// Cancels a running run. Returns nil when done, else why not.
    func cancel(_ id: Int64) async throws -> String?
}

/// What an attempt printed, as the job page shows it.
public enum AttemptOutput: Sendable, Equatable {
    /// It printed nothing.
    case nothing
    /// Its output is no longer kept: why, as text.
    case gone(String)
    /// The bytes asked for (the end), and how many it printed in all.
    case bytes(Data, size: Int)
}
