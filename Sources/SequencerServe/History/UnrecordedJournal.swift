import Foundation
import Sequencer
public import SequencerJournal

/// The journal of a workflow file that has never run: no runs, until a run creates the
/// journal; from then on, that journal's (``RunHistory``), opened at the first look after.
///
/// `sequencer serve -f FILE` of a new file shows its workflow page (its graph, or its
/// errors) this way, and creates nothing: the journal is made by the first run, not by
/// serving.
public final class UnrecordedJournal: RunSource {
    /// Where the journal will be.
    public let path: String
    private let opened = Locked<RunHistory?>(nil)

    public init(path: String) {
        self.path = path
    }

    /// The journal, once a run has created it; nil before.
    /// - Throws: ``JournalError`` when the file is there but cannot be read as a journal.
    public func history() throws -> RunHistory? {
        if let history = opened.withLock({ $0 }) { return history }
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let history = try RunHistory(journalPath: path)
        return opened.withLock { kept in
            if kept == nil { kept = history }
            return kept
        }
    }

    public var name: String { "journal \(path), no runs yet" }
    public var states: [String] { RunHistory.states }
    public var resumes: Bool { true }
    public var pollInterval: Duration { .milliseconds(200) }

    public func runsPage(workflow: String?, state: String?, before: Int64?, limit: Int) async throws -> RunHistory.RunsPage {
        guard let history = try await offThread({ try self.history() }) else {
            return RunHistory.RunsPage(runs: [], total: 0, older: nil, workflows: [])
        }
        return try await history.runsPage(workflow: workflow, state: state, before: before, limit: limit)
    }

    public func run(_ id: Int64) async throws -> RunView? {
        try await offThread { try self.history() }?.run(id)
    }

    public func output(of attempt: JournalAttempt, job: RunView.Job, run: Int64, last limit: Int?) async throws -> AttemptOutput {
        guard let history = try await offThread({ try self.history() }) else { return .nothing }
        return try await history.output(of: attempt, job: job, run: run, last: limit)
    }

    public func version() async throws -> Int? {
        try await offThread { try self.history() }?.version()
    }

    public func cancel(_ id: Int64) async throws -> String? {
        guard let history = try await offThread({ try self.history() }) else { return "there is no run #\(id)" }
        return try await history.cancel(id)
    }
}
