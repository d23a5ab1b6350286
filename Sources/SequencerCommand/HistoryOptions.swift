import ArgumentParser
import Foundation
import SequencerHistory
import SequencerJournal
import SequencerQueue
import SequencerRunner

/// Where `runs`, `show` and `trace` read runs: the journal beside `--file` (or at
/// `--journal`), or a durable queue (`--queue`, or `SEQUENCER_QUEUE`). Either is read through
/// one ``RunHistory``, so a run is shown and counted the same wherever it was recorded.
struct HistoryOptions: ParsableArguments {
    @OptionGroup var location: JournalLocation

    @Option(name: .customLong("queue"), help: ArgumentHelp(
        "Read the runs submitted to this durable queue instead of the journal (default: $SEQUENCER_QUEUE when set).",
        valueName: "location"))
    var queueLocation: String?

    /// The history to read; exit status 2, with the reason, when it cannot be opened.
    func open() async throws -> any RunHistory {
        guard let queue = QueueOptions.location(queueLocation) else { return JournalHistory(journal: try location.open()) }
        return QueueHistory(store: try await QueueLocation.open(queue, create: false), location: QueueLocation.shown(queue))
    }

    /// The workflow of the file, in `history`'s names.
    func workflow(in history: any RunHistory) -> String { history.workflow(ofFile: location.file) }
}

/// `body`'s value; a journal's or a queue's error is printed, with exit status 2.
func reading<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as JournalError {
        throw journalFailure(error)
    } catch let error as QueueError {
        throw journalFailure(error)
    }
}

/// A run as `runs --json` prints it, and as the `run` of `show --json`. Its counts add up to
/// its jobs: succeeded + upToDate + failed + timedOut + cancelled + skipped + unfinished = jobs
/// (see ``JobCounts``). A queue's run also has its `origin`.
struct RunEntry: Encodable {
    let run: HistoryRun

    enum CodingKeys: String, CodingKey {
        case id, workflow, origin, state, startedAt, endedAt, duration, jobs, succeeded, upToDate, failed, skipped, cancelled, timedOut
        case unfinished, sessions, retried
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let counts = run.counts
        try container.encode(run.id, forKey: .id)
        try container.encode(run.workflow, forKey: .workflow)
        try container.encodeIfPresent(run.origin, forKey: .origin)
        try container.encode(run.state, forKey: .state)
        try container.encode(Double(run.startedAt) / 1e9, forKey: .startedAt)
        try container.encodeIfPresent(run.endedAt.map { Double($0) / 1e9 }, forKey: .endedAt)
        try container.encodeIfPresent(run.duration, forKey: .duration)
        try container.encode(counts.jobs, forKey: .jobs)
        try container.encode(counts.succeeded, forKey: .succeeded)
        try container.encode(counts.upToDate, forKey: .upToDate)
        try container.encode(counts.failed, forKey: .failed)
        try container.encode(counts.skipped, forKey: .skipped)
        try container.encode(counts.cancelled, forKey: .cancelled)
        try container.encode(counts.timedOut, forKey: .timedOut)
        try container.encode(counts.unfinished, forKey: .unfinished)
        try container.encode(run.sessions, forKey: .sessions)
        try container.encodeIfPresent(counts.retried, forKey: .retried)
    }
}

/// A run with its jobs, as `show --json` prints it (and `run --queue --json`, at the end).
struct RunDocument: Encodable {
    let run: RunEntry
    let jobs: [Job]

    struct Job: Encodable {
        let name: String
        let status: String
        let code: String?
        let error: String?
        let attempts: Int
        let duration: Double?
        let exit: String?
        let exitCode: Int?
        /// The file its last attempt's output is in (a journal's runs).
        let output: String?
        /// Why it ran, in `--explain`'s words; absent when it was not checked or was up to date.
        let reason: String?
        /// Its fingerprint when it was checked.
        let fingerprint: String?
        /// The worker that ran its last attempt (a queue's runs).
        let worker: String?
    }

    init(_ record: RunRecord) {
        run = RunEntry(run: record.run)
        let last = record.lastAttempts
        jobs = record.jobs.map { job in
            let attempt = last[job.name]
            return Job(
                name: job.name, status: job.state.rawValue, code: job.code, error: job.error, attempts: job.attempts,
                duration: job.duration, exit: attempt?.exit, exitCode: attempt?.exitCode, output: attempt?.outputFile,
                reason: job.reason, fingerprint: job.fingerprint, worker: attempt?.worker)
        }
    }
}
