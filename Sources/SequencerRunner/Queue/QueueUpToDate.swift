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
    let store: any RunStore
    let workflow: String
    let check: UpToDate
    let recorded: Recorded

    /// Where ``UpToDate`` leaves the fingerprint of a success, for the queue.
    final class Recorded: FingerprintRecorder {
        let fingerprint = Locked<Fingerprint?>(nil)

        func recordFingerprint(job: String, fingerprint: String, parts: [String: String], outputs: [String: String]) {
            self.fingerprint.withLock { $0 = Fingerprint(fingerprint: fingerprint, parts: parts, outputs: outputs) }
        }
    }

    /// The check for a job of `file`, or nil for a job that always runs (it declares no outputs).
    init?(
        job: WorkflowFile.Job, in file: WorkflowFile, workflow: String, store: any RunStore, force: Bool,
        warn: @escaping @Sendable (String) -> Void
    ) async throws {
        guard !job.outputs.isEmpty else { return nil }
        // The job's own and its needs': all that its check reads.
        let names = [job.name] + job.needs.map(\.name)
        let stored = try await store.fingerprints(workflow: workflow, jobs: names)
        let recorded = Recorded()
        self.store = store
        self.workflow = workflow
        self.recorded = recorded
        check = UpToDate(
            file: file, stored: stored, hasher: FileHasher(), expansions: PatternExpansions(), recorder: recorded, force: force,
            explain: nil, warn: { warn($0.description) })
    }

    /// Keeps the fingerprint of the job, which just succeeded, in the queue.
    func succeeded(_ job: WorkflowFile.Job, now: Int64) async throws {
        check.succeeded(job)
        guard let fingerprint = recorded.fingerprint.withLock({ $0 }) else { return }
        try await store.recordFingerprint(fingerprint, workflow: workflow, job: job.name, now: now)
    }
}
