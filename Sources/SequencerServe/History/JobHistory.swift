import SequencerHistory

/// One job in one run: its status and how long it ran (nil: it did not run).
public struct JobSample: Sendable, Equatable {
    public let run: Int64
    public let status: String
    public let duration: Double?

    init(run: Int64, job: HistoryJob) {
        self.run = run
        status = job.state.rawValue
        duration = job.state == .upToDate ? nil : job.duration
    }

    init(run: Int64, status: String, duration: Double?) {
        (self.run, self.status, self.duration) = (run, status, duration)
    }
}

/// Jobs across runs: two runs side by side, and a job's last runs.
extension RunHistory {
    /// The runs of `workflow` up to `run` (newest first, at most `limit`), with each of
    /// `names`'s samples in them, oldest first.
    func samples(of names: Set<String>, workflow: String, upTo run: Int64, limit: Int) async throws -> (runs: [Int64], samples: [String: [JobSample]]) {
        let runs = try await self.runs(RunQuery(workflow: workflow, before: run + 1, limit: limit)).runs.map(\.id)
        var samples: [String: [JobSample]] = [:]
        for id in runs.reversed() {
            for job in try await jobs(of: id) where names.contains(job.name) {
                samples[job.name, default: []].append(JobSample(run: id, job: job))
            }
        }
        return (runs, samples)
    }

    /// The run of the same workflow just before `run`, if any.
    func previousRun(of run: HistoryRun) async throws -> Int64? {
        try await runs(RunQuery(workflow: run.workflow, before: run.id, limit: 1)).runs.first?.id
    }
}

/// How a job differs between two runs.
struct JobDifference: Equatable {
    let name: String
    let before: JobSample?
    let after: JobSample?
    /// The job's fingerprint in each run (nil: not known, as for a job that never started).
    var fingerprints: (before: String?, after: String?) = (nil, nil)
    /// Why it ran in the later run, in `--explain`'s words.
    var reason: String?

    static func == (a: JobDifference, b: JobDifference) -> Bool {
        (a.name, a.before, a.after, a.fingerprints.before, a.fingerprints.after, a.reason)
            == (b.name, b.before, b.after, b.fingerprints.before, b.fingerprints.after, b.reason)
    }

    /// Whether both fingerprints are known and differ: its command, environment, inputs or
    /// needed jobs changed between the runs.
    var fingerprintChanged: Bool {
        guard let before = fingerprints.before, let after = fingerprints.after else { return false }
        return before != after
    }

    /// A change of status or of fingerprint, or of time by more than a fifth and more than 50 ms.
    var differs: Bool {
        guard let before, let after else { return true }
        if before.status != after.status || fingerprintChanged { return true }
        guard let a = before.duration, let b = after.duration else { return (before.duration == nil) != (after.duration == nil) }
        return abs(b - a) > 0.05 && abs(b - a) > 0.2 * max(a, b)
    }

    /// Every job of `b`, then those only `a` has, with their fingerprints in each run and why
    /// they ran in `b` when these are given.
    static func between(
        _ a: RunView, _ b: RunView, fingerprints: (before: [String: String], after: [String: String]) = ([:], [:]),
        reasons: [String: String] = [:]
    ) -> [JobDifference] {
        func sample(_ view: RunView, _ job: RunView.Job) -> JobSample {
            job.record.map { JobSample(run: view.run.id, job: $0) } ?? JobSample(run: view.run.id, status: job.status, duration: nil)
        }
        var names = b.jobs.map(\.name)
        let known = Set(names)
        names += a.jobs.map(\.name).filter { !known.contains($0) }
        return names.map { name in
            JobDifference(
                name: name, before: a.job(named: name).map { sample(a, $0) }, after: b.job(named: name).map { sample(b, $0) },
                fingerprints: (fingerprints.before[name], fingerprints.after[name]), reason: reasons[name])
        }
    }
}
