import Foundation
package import SequencerHistory

/// A run as `runs --json` prints it, and as the `run` of `show --json`. Its counts add up to
/// its jobs: succeeded + upToDate + failed + timedOut + cancelled + skipped + unfinished = jobs
/// (see ``JobCounts``). A queue's run also has its `origin`.
package struct RunEntry: Encodable {
    package let run: HistoryRun

    package init(run: HistoryRun) { self.run = run }

    enum CodingKeys: String, CodingKey {
        case id, workflow, origin, state, startedAt, endedAt, duration, jobs, succeeded, upToDate, failed, skipped, cancelled, timedOut
        case unfinished, sessions, retried
    }

    package func encode(to encoder: any Encoder) throws {
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
package struct RunDocument: Encodable {
    package let run: RunEntry
    package let jobs: [Job]

    package struct Job: Encodable {
        package let name: String
        package let status: String
        package let code: String?
        package let error: String?
        package let attempts: Int
        package let duration: Double?
        package let exit: String?
        package let exitCode: Int?
        /// The file its last attempt's output is in (a journal's runs).
        package let output: String?
        /// Why it ran, in `--explain`'s words; absent when it was not checked or was up to date.
        package let reason: String?
        /// Its fingerprint when it was checked.
        package let fingerprint: String?
        /// The worker that ran its last attempt (a queue's runs).
        package let worker: String?
        /// The cache key its outputs were restored from, when the shared output cache had its
        /// result (it succeeded without running); absent when it ran.
        package let restoredFrom: String?
    }

    package init(_ record: RunRecord) {
        run = RunEntry(run: record.run)
        let last = record.lastAttempts
        let restored = record.restoredKeys
        jobs = record.jobs.map { job in
            let attempt = last[job.name]
            return Job(
                name: job.name, status: job.state.rawValue, code: job.code, error: job.error, attempts: job.attempts,
                duration: job.duration, exit: attempt?.exit, exitCode: attempt?.exitCode, output: attempt?.outputFile,
                reason: job.reason, fingerprint: job.fingerprint, worker: attempt?.worker, restoredFrom: restored[job.name])
        }
    }
}

/// JSON as the commands print it: sorted keys, pretty, one document, with a final newline.
package func jsonDocument(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    return ((try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null") + "\n"
}
