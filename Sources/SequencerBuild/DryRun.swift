import Foundation
import Sequencer
public import SequencerJournal
public import SequencerWorkflowFile

/// What a run of a workflow file would do, found without running anything: for each job, in
/// the order the run adds them (file order, needs first), whether it would run and why, in
/// the words of `--explain`, or that it is up to date.
///
/// A job runs or is skipped as ``UpToDate`` decides; in addition, like `ninja -n`, a job whose
/// needed job would run to remake its outputs would run too ("needed job 'x' would run"): that
/// job may rewrite its inputs. A needed job without outputs runs every time and changes no
/// fingerprint, so it makes nothing run, as in a real run.
///
/// ```swift
/// let plan = DryRun(file: file, stored: snapshot.fingerprints, hasher: FileHasher(cache: snapshot.fileHashes),
///                   expansions: PatternExpansions(), force: false)
/// plan.jobs.filter(\.runs).map(\.reason)   // ["input src/a.c changed", "needed job 'a' would run"]
/// ```
public struct DryRun: Sendable {
    /// One job's fate.
    public struct Job: Sendable, Equatable {
        public let name: String
        /// Whether it would run (otherwise it is up to date).
        public let runs: Bool
        /// Why it would run, or `up to date`.
        public let reason: String

        public init(name: String, runs: Bool, reason: String) {
            self.name = name
            self.runs = runs
            self.reason = reason
        }
    }

    /// The jobs, in the order the run adds them.
    public let jobs: [Job]

    /// How many jobs would run.
    public var runCount: Int { jobs.count { $0.runs } }

    /// Decides each job's fate. Reads the inputs (hashing those the cache has no hash for),
    /// writes nothing.
    ///
    /// - Parameters:
    ///   - file: The workflow file, its jobs selected.
    ///   - stored: The fingerprints of the jobs' last successes (empty without a journal).
    ///   - hasher: Hashes input files; give it the journal's cache and no recorder.
    ///   - expansions: Expands input patterns.
    ///   - force: Whether every job runs (`--force`).
    /// - Complexity: O(jobs + needs), plus hashing the inputs.
    public init(
        file: WorkflowFile, stored: [String: JournalFingerprint], hasher: FileHasher, expansions: PatternExpansions, force: Bool
    ) {
        let reasons = Locked<[String: String]>([:])
        let check = UpToDate(
            file: file, stored: stored, hasher: hasher, expansions: expansions, recorder: NoRecorder(), force: force,
            explain: { job, reason in reasons.withLock { $0[job] = reason } })
        var remade: Set<String> = []  // jobs with outputs that would run
        var jobs: [Job] = []
        for job in ShellWorkflow.needsFirst(file.jobs) {
            var reason: String?
            if !check.isUpToDate(job) {
                reason = reasons.withLock { $0[job.name] } ?? "its fingerprint changed"
            } else if let need = job.needs.first(where: { remade.contains($0.name) }) {
                reason = "needed job '\(need.name)' would run"
            }
            if reason != nil, !job.outputs.isEmpty { remade.insert(job.name) }
            jobs.append(Job(name: job.name, runs: reason != nil, reason: reason ?? "up to date"))
        }
        self.jobs = jobs
    }
}

/// Records nothing: a dry run writes no fingerprint.
private struct NoRecorder: FingerprintRecorder {
    func recordFingerprint(job: String, fingerprint: String, parts: [String: String], outputs: [String: String]) {}
}
