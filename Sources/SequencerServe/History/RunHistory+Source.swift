import Foundation
public import SequencerJournal

/// A journal as the pages' source: runs recorded by `sequencer run`, output in files beside it.
/// Each read is made on a thread of Dispatch's, not on one of Swift's few (nor the server's
/// event loops): a slow disk then delays that page alone.
extension RunHistory: RunSource {
    public func runsPage(workflow: String?, state: String?, before: Int64?, limit: Int) async throws -> RunsPage {
        try await offThread { try self.readRunsPage(workflow: workflow, state: state, before: before, limit: limit) }
    }

    public func run(_ id: Int64) async throws -> RunView? {
        try await offThread { try self.readRun(id) }
    }

    public var name: String { "journal \(journal.path)" }
    public var states: [String] { Self.states }
    /// A journal's run states.
    static let states = ["running", "succeeded", "failed", "cancelled", "timedOut", "interrupted"]
    public var resumes: Bool { true }
    public var pollInterval: Duration { .milliseconds(200) }

    /// The journal's data version while another process records in it. When none does, nil:
    /// a run that says it runs is read again (its recorder may have died without a write).
    public func version() async throws -> Int? {
        try await offThread { [journal] in journal.isRecordingElsewhere ? try journal.dataVersion() : nil }
    }

    public func output(of attempt: JournalAttempt, job: RunView.Job, run: Int64, last limit: Int?) async throws -> AttemptOutput {
        try await offThread { Self.output(of: attempt, last: limit) }
    }

    private static func output(of attempt: JournalAttempt, last limit: Int?) -> AttemptOutput {
        guard let path = attempt.output else { return .nothing }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .gone("The output is gone: \(path) (sequencer gc deletes old runs' output).")
        }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        let start = limit.map { size > UInt64($0) ? size - UInt64($0) : 0 } ?? 0
        try? handle.seek(toOffset: start)
        return .bytes((try? handle.readToEnd()) ?? Data(), size: Int(size))
    }

    /// SIGINT to the `sequencer` recording the run, as Ctrl-C would.
    public func cancel(_ id: Int64) async throws -> String? {
        guard let view = try await run(id) else { return "there is no run #\(id)" }
        guard view.state == "running", let process = journal.recordingProcess, process > 0 else {
            return "run #\(id) is not running (it is \(view.state))"
        }
        guard kill(process, SIGINT) == 0 else { return "cannot signal process \(process): \(String(cString: strerror(errno)))" }
        return nil
    }
}

/// `work`'s value, computed on a Dispatch thread: for reads that block (SQLite, files).
func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
