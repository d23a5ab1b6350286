import Foundation
import Sequencer
import Synchronization
public import SequencerJournal
public import SequencerWorkflowFile
public import SequencerHistory

/// Up-to-date checks with ninja's and llbuild's meaning: a job with `outputs` is skipped when
/// its fingerprint equals the fingerprint of its last success and all its outputs exist.
///
/// A fingerprint is a hash over the job's parts: its command, its environment (the file's and
/// the job's `env`), its working directory, its declared outputs, the content hash of each
/// input file (patterns expanded when the job starts, after its needs ran), the fingerprints
/// of the jobs it needs, and, for a job with a `depfile`, the content hash of each file its
/// depfile named after its last success. It is computed as the job is about to start, and
/// recorded when it succeeds.
///
/// Each distinct glob is walked once while no job has run: a job that ran may have written
/// files a glob matches, so its success makes later fingerprints walk again.
///
/// ```swift
/// let check = UpToDate(
///     file: file, stored: try journal.fingerprints(workflow: key), hasher: FileHasher(),
///     expansions: PatternExpansions(), recorder: recorder, force: false, explain: nil)
/// let shell = try ShellWorkflow(file: file, runner: ProcessRunner(), outputDirectory: "out", upToDate: check)
/// ```
public final class UpToDate: UpToDateCheck {
    let file: WorkflowFile
    let stored: [String: Fingerprint]
    let hasher: FileHasher
    private let expansions: PatternExpansions
    private let recorder: any FingerprintRecorder
    let force: Bool
    /// Called with a job's name and why it runs, for `--explain`.
    private let explain: (@Sendable (String, String) -> Void)?
    /// Called with a problem of a depfile: missing, malformed, or naming a file that is not there.
    private let warn: (@Sendable (Diagnostic) -> Void)?
    /// The fingerprints computed in this run, by job.
    private let computed = Locked<[String: (fingerprint: String, parts: FingerprintParts)]>([:])
    private let base: [String: String]
    /// The digest of the file's environment and of no working directory, shared by most jobs.
    private let baseEnvironmentDigest: String
    private let noDirectoryDigest = FileHasher.quickDigest(of: "")

    /// Creates the checks for one run of `file`.
    ///
    /// - Parameters:
    ///   - file: The workflow file being run.
    ///   - stored: The fingerprints of the jobs' last successes, by job (`SQLiteJournal.fingerprints(workflow:)`).
    ///   - hasher: Hashes input files, with the journal's cache of earlier hashes.
    ///   - expansions: Expands input patterns, each glob walked once while no job has run.
    ///   - recorder: Where the fingerprints of the jobs that succeed are recorded: the journal's
    ///     recorder, or a durable queue's.
    ///   - force: Whether every job runs, up to date or not (their fingerprints are still recorded).
    ///   - explain: Called with a job's name and why it runs, for `--explain`.
    ///   - warn: Called with each problem of a depfile read after a success, and with each
    ///     declared output a job that succeeded did not write (warnings: the job then runs
    ///     every time until it is mended).
    public init(
        file: WorkflowFile, stored: [String: Fingerprint], hasher: FileHasher, expansions: PatternExpansions,
        recorder: any FingerprintRecorder, force: Bool, explain: (@Sendable (String, String) -> Void)?,
        warn: (@Sendable (Diagnostic) -> Void)? = nil
    ) {
        self.file = file
        self.stored = stored
        self.hasher = hasher
        self.expansions = expansions
        self.recorder = recorder
        self.force = force
        self.explain = explain
        self.warn = warn
        base = file.environment
        baseEnvironmentDigest = Self.digest(environment: file.environment)
    }

    private static func digest(environment: [String: String]) -> String {
        FileHasher.quickDigest(of: environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\0"))
    }

    /// Whether `job` is up to date: it declares outputs, they all exist unchanged since its last
    /// success, and its fingerprint equals that success's. Call it once its needs have ended.
    public func isUpToDate(_ job: WorkflowFile.Job) -> Bool {
        let parts = self.parts(of: job) { _, need in
            computed.withLock { $0[need]?.fingerprint } ?? stored[need]?.fingerprint
        } inputHash: { path in
            hasher.hash(path) ?? "missing"
        }
        let fingerprint = parts.fingerprint
        computed.withLock { $0[job.name] = (fingerprint, parts) }
        let reason = force ? "--force" : whyNotUpToDate(job, fingerprint: fingerprint, parts: parts)
        recorder.recordCheck(job: job.name, fingerprint: fingerprint, reason: reason)
        guard let reason else { return true }
        explain?(job.name, reason)
        return false
    }

    /// The parts of the fingerprint ``isUpToDate(_:)`` computed for the job `name`, nil before it
    /// was checked: for ``DryRun``, which tells which of them a run could change.
    func checkedParts(of name: String) -> [String: String]? {
        computed.withLock { $0[name]?.parts.dictionary }
    }

    /// Why an output of `job` is not as its last success left it; nil when they all are, or
    /// when it has no recorded success.
    func changedOutput(of job: WorkflowFile.Job) -> String? {
        stored[job.name].flatMap { changedOutput(of: job, since: $0) }
    }

    /// Why `job`, whose fingerprint and parts are these, is not up to date; nil when it is.
    private func whyNotUpToDate(_ job: WorkflowFile.Job, fingerprint: String, parts: FingerprintParts) -> String? {
        guard !job.outputs.isEmpty else { return "it declares no outputs, so it always runs" }
        guard let last = stored[job.name] else { return "no earlier success is recorded" }
        guard last.fingerprint == fingerprint else { return Self.changes(from: last.parts, to: parts.dictionary) }
        return changedOutput(of: job, since: last)
    }

    /// Why an output of `job` is not as its last success left it (missing, or written since);
    /// nil when they all are.
    private func changedOutput(of job: WorkflowFile.Job, since last: Fingerprint) -> String? {
        let directory = file.directory(of: job)
        for entry in job.outputEntries {
            let output = entry.path
            let stamp = FileHasher.describeStamp(of: resolve(output, in: directory))
            guard stamp != "none" else { return "output \(output) is missing" }
            // An output written since the success (by a failed or killed attempt, or by hand)
            // is not that success's output.
            if !last.outputMatches(output, stamp: Array(stamp.utf8)) {
                return "output \(output) changed since its last success"
            }
        }
        return nil
    }

    /// Records the fingerprint of `job`, whose command just succeeded, with its outputs' stamps
    /// and, when it has a depfile, the files the depfile names (see ``withDepfile(of:parts:)``).
    public func succeeded(_ job: WorkflowFile.Job) {
        expansions.filesChanged()
        guard var (fingerprint, parts) = computed.withLock({ $0[job.name] }) else { return }
        if job.depfile != nil {
            parts = withDepfile(of: job, parts: parts)
            fingerprint = parts.fingerprint
            // The jobs that need this one start after this and must see what is recorded.
            computed.withLock { $0[job.name] = (fingerprint, parts) }
        }
        // The outputs as this success left them: kept with the fingerprint, not part of it.
        var outputs: [String: String] = [:]
        let directory = file.directory(of: job)
        for entry in job.outputEntries {
            let stamp = FileHasher.describeStamp(of: resolve(entry.path, in: directory))
            outputs[entry.path] = stamp
            // Missing, it makes the job run every time: say so, as for a depfile not written.
            if stamp == "none" {
                warn?(Diagnostic(
                    file: job.definedIn, location: entry.location, severity: .warning,
                    message: "job '\(job.name)' succeeded without writing its output \(entry.path); it will run every time until it writes it"))
            }
        }
        if let last = stored[job.name], last.fingerprint == fingerprint, last.outputs == outputs { return }
        recorder.recordFingerprint(job: job.name, fingerprint: fingerprint, parts: parts.dictionary, outputs: outputs)
    }

    /// `parts` with the files `job`'s depfile names as it is now (`dep:PATH`, each with its
    /// content's hash) in place of those of its last success, the way ninja's `deps = gcc`
    /// keeps them: the next run hashes these files again, so a header edit reruns exactly the
    /// jobs that include it. A depfile that cannot be read, or that names a file that is not
    /// there, is warned about and leaves a part that no later run matches: the job runs every
    /// time until it is fixed.
    private func withDepfile(of job: WorkflowFile.Job, parts: FingerprintParts) -> FingerprintParts {
        guard let depfile = job.depfile else { return parts }
        var parts = FingerprintParts(parts.dictionary.filter { !$0.key.hasPrefix("dep:") })
        let directory = file.directory(of: job)
        func warning(_ message: String) {
            warn?(Diagnostic(file: job.definedIn, location: depfile.location, severity: .warning,
                             message: "job '\(job.name)': \(message); it will run every time until this is mended"))
        }
        let inputs: [String]
        do throws(Depfile.Malformed) {
            guard let data = FileManager.default.contents(atPath: resolve(depfile.path, in: directory)) else {
                throw Depfile.Malformed(line: 0, message: "it was not written (check the command's -MF or -MD)")
            }
            inputs = try Depfile.inputs(in: String(decoding: data, as: UTF8.self))
        } catch {
            let place = error.line > 0 ? ", \(error)" : ": \(error.message)"
            warning("its depfile \(depfile.path) cannot be read\(place)")
            parts["depfile"] = "unreadable"
            return parts
        }
        parts["depfile"] = "read"
        let declared = Set(job.inputs)
        // Compilers write `lib/x/../common/a.h`: one spelling per file, as ninja keeps.
        var seen: Set<String> = []
        for input in inputs.map(Depfile.normalized) where !declared.contains(input) && seen.insert(input).inserted {
            guard let hash = hasher.hash(resolve(input, in: directory)) else {
                warning("its depfile \(depfile.path) names \(input), which does not exist")
                parts["dep:" + input] = "missing after its last success"
                continue
            }
            parts["dep:" + input] = hash
        }
        return parts
    }

    /// The parts of `job`'s fingerprint.
    ///
    /// - Parameters:
    ///   - needFingerprint: The fingerprint of a needed job, by its index in the job's `needs`
    ///     and its name; nil when unknown.
    ///   - inputHash: The hash of an input file (its absolute or resolved path), `missing` when
    ///     there is none (``FileHasher/hash(_:)``'s, or one remembered from it).
    func parts(
        of job: WorkflowFile.Job, needFingerprint: (Int, String) -> String?, inputHash: (String) -> String
    ) -> FingerprintParts {
        var parts = FingerprintParts()
        // Parts get a quick hash, to tell which changed; the fingerprint over them is SHA-256.
        // Set in key order (command, cwd, env, input:, need:, outputs), which spares a sort.
        parts["command"] = FileHasher.quickDigest(of: job.run)
        parts["cwd"] = job.workingDirectory.map { FileHasher.quickDigest(of: $0) } ?? noDirectoryDigest
        parts["env"] = job.environment.isEmpty ? baseEnvironmentDigest : Self.digest(environment: base.merging(job.environment) { $1 })
        if !job.inputEntries.isEmpty {
            let directory = file.directory(of: job)
            for entry in job.inputEntries {
                let pattern = entry.path
                let paths = expansions.expand(pattern, in: directory)
                if paths.isEmpty, FilePattern.isGlob(pattern) { parts["input:" + pattern] = "no files" }
                for path in paths {
                    let resolved = resolve(path, in: directory)
                    parts["input:" + path] = inputHash(resolved)
                }
            }
        }
        for (index, need) in job.needs.enumerated() {
            parts["need:" + need.name] = needFingerprint(index, need.name) ?? "unknown"
        }
        if job.depfile != nil {
            // The files the depfile named at the last success, as they are now.
            parts["depfile"] = "read"
            let directory = file.directory(of: job)
            for key in (stored[job.name]?.parts.keys).map(Array.init)?.sorted() ?? [] where key.hasPrefix("dep:") {
                parts[key] = inputHash(resolve(String(key.dropFirst(4)), in: directory))
            }
        }
        parts["outputs"] = Self.outputsDigest(of: job)
        return parts
    }

    /// The quick hash of a job's outputs, joined by NUL bytes.
    private static func outputsDigest(of job: WorkflowFile.Job) -> String {
        if job.outputEntries.count == 1 { return FileHasher.quickDigest(of: job.outputEntries[0].path) }
        return FileHasher.quickDigest(of: job.outputs.joined(separator: "\0"))
    }

    /// What differs between two fingerprints' parts, for people.
    static func changes(from old: [String: String], to new: [String: String]) -> String {
        var changes: [String] = []
        for key in Set(old.keys).union(new.keys).sorted() where old[key] != new[key] {
            let (kind, name) = split(key)
            switch (kind, old[key], new[key]) {
            case ("input", nil, _): changes.append("input \(name) is new")
            case ("input", _, nil): changes.append("input \(name) is gone")
            case ("input", _, "missing"?): changes.append("input \(name) is missing")
            case ("input", _, _): changes.append("input \(name) changed")
            case ("dep", _, nil): continue  // its depfile's list changed, for a reason told by another part
            case ("dep", _, "missing"?): changes.append("input \(name) (from its depfile) is missing")
            case ("dep", _, _): changes.append("input \(name) (from its depfile) changed")
            case ("depfile", _, _): changes.append("its depfile could not be read after its last success")
            case ("need", _, _): changes.append("needed job '\(name)' changed")
            case ("env", _, _): changes.append("its environment changed")
            case ("cwd", _, _): changes.append("its working directory changed")
            case ("outputs", _, _): changes.append("its outputs changed")
            default: changes.append("its \(kind) changed")
            }
        }
        if changes.isEmpty { return "its fingerprint changed" }
        let shown = changes.prefix(5).joined(separator: ", ")
        return changes.count > 5 ? shown + ", and \(changes.count - 5) more changes" : shown
    }

    private static func split(_ key: String) -> (String, String) {
        guard let colon = key.firstIndex(of: ":") else { return (key, "") }
        return (String(key[..<colon]), String(key[key.index(after: colon)...]))
    }

    /// `path` under `directory`, unless it is absolute.
    func resolve(_ path: String, in directory: String) -> String {
        path.hasPrefix("/") ? path : directory + "/" + path
    }
}
