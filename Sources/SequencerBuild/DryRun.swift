import Foundation
import Sequencer
public import SequencerJournal
public import SequencerWorkflowFile
public import SequencerHistory

/// What a run of a workflow file would do, found without running anything: for each job, in
/// the order the run adds them (file order, needs first), whether it would run, may run, or
/// is up to date, and why, in the words of `--explain`.
///
/// A run decides each job as ``UpToDate`` does, when the job is about to start, after its
/// needs ran. A dry run runs nothing, so it cannot know what a job that would run writes: a
/// recompile may give the same bytes, and then its dependents stay up to date (early cutoff).
/// So a job is:
/// - **would run** when something the run cannot change decides it: its command, its
///   environment, an input no job that runs writes, a missing or changed output of its own,
///   a needed job whose fingerprint changes for sure; or it has no outputs, no earlier success,
///   or `--force`. The run runs it.
/// - **may run** when all that decides it is what a job that would run (or may run) writes
///   first: an input that is that job's output, or that job's fingerprint (which its depfile,
///   read anew, may change). The run runs it if that job changes those, and skips it if not.
/// - **up to date** otherwise: the run skips it.
///
/// ```swift
/// let plan = DryRun(file: file, stored: snapshot.fingerprints, hasher: FileHasher(cache: snapshot.fileHashes),
///                   expansions: PatternExpansions(), force: false)
/// plan.jobs.filter(\.runs).map(\.reason)     // ["output obj/tick.o changed since its last success"]
/// plan.jobs.filter(\.mayRun).map(\.reason)   // ["if 'compile-tick', which would run, changes input obj/tick.o"]
/// ```
public struct DryRun: Sendable {
    /// One job's fate.
    public struct Job: Sendable, Equatable {
        public let name: String
        /// Whether it would run, for sure.
        public let runs: Bool
        /// Whether it runs only if a job that runs before it changes what it reads (never
        /// together with ``runs``).
        public let mayRun: Bool
        /// Why it would run, on what it may run, or `up to date`.
        public let reason: String

        public init(name: String, runs: Bool, mayRun: Bool = false, reason: String) {
            self.name = name
            self.runs = runs
            self.mayRun = mayRun && !runs
            self.reason = reason
        }
    }

    /// The jobs, in the order the run adds them.
    public let jobs: [Job]

    /// How many jobs would run, for sure.
    public var runCount: Int { jobs.count { $0.runs } }

    /// How many jobs may run.
    public var mayRunCount: Int { jobs.count { $0.mayRun } }

    /// Decides each job's fate. Reads the inputs (hashing those the cache has no hash for),
    /// writes nothing.
    ///
    /// - Parameters:
    ///   - file: The workflow file, its jobs selected.
    ///   - stored: The fingerprints of the jobs' last successes (empty without a journal).
    ///   - hasher: Hashes input files; give it the journal's cache and no recorder.
    ///   - expansions: Expands input patterns.
    ///   - force: Whether every job runs (`--force`).
    /// - Complexity: O(jobs + needs + fingerprint parts), plus hashing the inputs.
    public init(
        file: WorkflowFile, stored: [String: Fingerprint], hasher: FileHasher, expansions: PatternExpansions, force: Bool
    ) {
        let reasons = Locked<[String: String]>([:])
        let check = UpToDate(
            file: file, stored: stored, hasher: hasher, expansions: expansions, recorder: NoRecorder(), force: force,
            explain: { job, reason in reasons.withLock { $0[job] = reason } })
        var plan = Plan()
        var jobs: [Job] = []
        for job in ShellWorkflow.needsFirst(file.jobs) {
            let upToDate = check.isUpToDate(job)
            let parts = check.checkedParts(of: job.name) ?? [:]
            let directory = file.directory(of: job)
            let explained = reasons.withLock { $0[job.name] } ?? "its fingerprint changed"
            let fate: Job
            if let last = stored[job.name], !force, !job.outputs.isEmpty {
                let old = last.parts
                // The parts a job that runs first may change, with what changes them.
                var unsure: [String: String] = [:]
                for key in Set(parts.keys).union(old.keys) {
                    if let cause = plan.cause(ofChangeIn: key, value: parts[key], stored: old[key], directory: directory) {
                        unsure[key] = cause
                    }
                }
                let sure = Set(parts.keys).union(old.keys).filter { parts[$0] != old[$0] && unsure[$0] == nil }
                if !sure.isEmpty {
                    let changes = UpToDate.changes(
                        from: old.filter { sure.contains($0.key) }, to: parts.filter { sure.contains($0.key) })
                    fate = Job(name: job.name, runs: true, reason: changes)
                    // Its new fingerprint differs from its last success's for sure, unless
                    // only what its depfile named changed (the depfile is read anew).
                    if sure.contains(where: { !$0.hasPrefix("dep:") && $0 != "depfile" }) { plan.changes.insert(job.name) }
                } else if upToDate && unsure.isEmpty {
                    fate = Job(name: job.name, runs: false, reason: "up to date")
                } else if let output = check.changedOutput(of: job) {
                    fate = Job(name: job.name, runs: true, reason: output)
                } else if let first = unsure.min(by: { Plan.order(of: $0.key, parts, old) < Plan.order(of: $1.key, parts, old) }) {
                    fate = Job(name: job.name, runs: false, mayRun: true, reason: plan.words(key: first.key, cause: first.value))
                } else {
                    fate = Job(name: job.name, runs: !upToDate, reason: upToDate ? "up to date" : explained)
                }
                if !unsure.isEmpty { plan.unsureFingerprints.insert(job.name) }
            } else {
                fate = Job(name: job.name, runs: !upToDate, reason: upToDate ? "up to date" : explained)
                if parts.contains(where: { plan.cause(ofChangeIn: $0.key, value: $0.value, stored: nil, directory: directory) != nil }) {
                    plan.unsureFingerprints.insert(job.name)
                }
            }
            plan.note(fate, of: job, stored: stored[job.name], directory: directory)
            jobs.append(fate)
        }
        self.jobs = jobs
    }
}

/// What a dry run knows, job by job, of what the jobs before would change.
private struct Plan {
    /// The files that jobs which would run or may run write (their outputs, resolved), with
    /// the job and its fate (`would run`, `may run`).
    var written: [String: (job: String, fate: String)] = [:]
    /// Jobs whose fingerprint, as the run records it, a dry run cannot know: they read what a
    /// job that runs first writes, or they have a depfile and run.
    var unsureFingerprints: Set<String> = []
    /// Jobs whose fingerprint differs from their last success's for sure.
    var changes: Set<String> = []
    /// The fates of the jobs so far, for the words of a need.
    var fates: [String: String] = [:]
    /// The fingerprints of the jobs' last successes, as a dependent's stored part names them.
    var lastFingerprints: [String: String] = [:]

    /// What could change the part `key` of a job's fingerprint before the job starts, in a
    /// run: nil when nothing could (its value now is the run's).
    /// `value` is its value now, `stored` at the job's last success.
    func cause(ofChangeIn key: String, value: String?, stored: String?, directory: String) -> String? {
        if key.hasPrefix("need:") {
            let need = String(key.dropFirst(5))
            guard unsureFingerprints.contains(need) else { return nil }
            // A need that changes for sure changes this part for sure, if it held that need's
            // last success.
            if changes.contains(need), stored != nil, stored == lastFingerprints[need] { return nil }
            return need
        }
        let path: String
        if key.hasPrefix("input:") {
            path = String(key.dropFirst(6))
        } else if key.hasPrefix("dep:") {
            path = String(key.dropFirst(4))
        } else {
            return nil
        }
        let resolved = path.hasPrefix("/") ? path : directory + "/" + path
        if let writer = written[resolved] { return writer.job }
        // A pattern that matched nothing may match what a job writes.
        if value == "no files" || stored == "no files", FilePattern.isGlob(path),
           let match = FilePattern.matching(resolved, among: Array(written.keys)).min() {
            return written[match]?.job
        }
        return nil
    }

    /// Notes a job's fate: the files it writes when it runs, and its fingerprint.
    mutating func note(_ fate: DryRun.Job, of job: WorkflowFile.Job, stored: Fingerprint?, directory: String) {
        let word = fate.runs ? "would run" : fate.mayRun ? "may run" : nil
        if let stored { lastFingerprints[job.name] = stored.fingerprint }
        guard let word else { return }
        fates[job.name] = word
        if job.depfile != nil { unsureFingerprints.insert(job.name) }
        for output in job.outputs {
            written[output.hasPrefix("/") ? output : directory + "/" + output] = (job.name, word)
        }
    }

    /// The reason of a job that may run, from the first part a job before may change.
    /// The order in which a may-run job's reason is chosen among its unsure parts: a part that
    /// differs now first, then by key.
    static func order(of key: String, _ parts: [String: String], _ old: [String: String]) -> (Int, String) {
        (parts[key] == old[key] ? 1 : 0, key)
    }

    /// `if 'compile-tick', which would run, changes input obj/tick.o`
    func words(key: String, cause: String) -> String {
        let fate = fates[cause] ?? "may run"
        if key.hasPrefix("need:") { return "if needed job '\(cause)', which \(fate), changes its fingerprint" }
        let what = key.hasPrefix("dep:") ? "input \(key.dropFirst(4)) (from its depfile)" : "input \(key.dropFirst(6))"
        return "if '\(cause)', which \(fate), changes \(what)"
    }
}

/// Records nothing: a dry run writes no fingerprint.
private struct NoRecorder: FingerprintRecorder {
    func recordFingerprint(job: String, fingerprint: String, parts: [String: String], outputs: [String: String]) {}
}
