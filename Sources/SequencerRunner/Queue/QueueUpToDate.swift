import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
import SequencerQueue
import SequencerWorkflowFile
import SequencerHistory

/// A worker's up-to-date check of one attempt, against the fingerprints kept in the queue: the
/// same rule as a local run's (``UpToDate``), with what every worker reads and writes shared.
/// The inputs and outputs are those of the worker's own copy of the directory: across machines
/// the check holds when that copy is on shared storage.
struct QueueUpToDate {
    let writer: any RunWriter
    let check: UpToDate

    /// The check for a job of `file`, or nil for a job that always runs (it declares no outputs).
    /// It reads the fingerprints from `history`, and records the job's through `writer`.
    init?(
        job: WorkflowFile.Job, in file: WorkflowFile, workflow: String, history: any RunHistory, writer: any RunWriter, force: Bool,
        warn: @escaping @Sendable (String) -> Void
    ) async throws {
        guard !job.outputs.isEmpty else { return nil }
        // The job's own and its needs': all that its check reads.
        let names = [job.name] + job.needs.map(\.name)
        let stored = try await history.fingerprints(workflow: workflow, jobs: names)
        self.writer = writer
        check = UpToDate(
            file: file, stored: stored, hasher: FileHasher(), expansions: PatternExpansions(), recorder: writer, force: force,
            explain: nil, warn: { warn($0.description) })
    }

    /// Keeps the fingerprint of the job, which just succeeded, in the queue.
    func succeeded(_ job: WorkflowFile.Job) async {
        check.succeeded(job)
        await writer.flush()
    }
}
