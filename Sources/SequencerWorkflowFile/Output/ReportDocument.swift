public import Sequencer
import SequencerOutput

/// A run's report as one JSON object, for `sequencer run --json`: the run's status and
/// duration, a count per job status, the critical path, and each job in file order with its
/// status, attempts, how its last process ended, its times, its error, command and output file.
///
/// ```swift
/// let document = ReportDocument(file: file, report: await run.report(), attempts: log.all)
/// print(document.json())
/// // {
/// //   "counts" : { "cancelled" : 0, "failed" : 1, ... },
/// //   "criticalPath" : [ "splash", "fetch-config" ],
/// //   ...
/// ```
///
/// Times are seconds from the run's start. A value that does not apply (the exit code of a
/// process killed by a signal, the times of a job that never started) is `null`, never missing.
public struct ReportDocument: Codable, Sendable, Equatable {
    /// The workflow file's path.
    public var file: String
    /// How the run ended: `succeeded`, `failed`, `cancelled` or `timedOut` (the run's deadline passed).
    public var status: String
    /// Whether the run was interrupted (SIGINT or SIGTERM).
    public var interrupted: Bool
    /// Seconds from the run's start until its last job ended.
    public var duration: Double
    /// How many jobs ended with each status; every status is present, 0 or more.
    public var counts: [String: Int]
    /// The jobs that decided the run's wall time, in the order they ran.
    public var criticalPath: [String]
    /// Every job of the file, in file order.
    public var jobs: [Job]
    /// What the shared output cache did, when the run used one.
    public var cache: Cache?

    /// What the shared output cache did in a run (`sequencer run --cache`).
    public struct Cache: Codable, Sendable, Equatable {
        /// Jobs restored from the cache, and cached jobs it had no entry for (they ran).
        public var hits, misses: Int
        /// Results stored, and results not stored (an input changed while the job ran, ...).
        public var stored, notStored: Int
        public var bytesRestored, bytesStored: Int64
        /// How long the restored jobs ran when they were stored, in seconds.
        public var secondsSaved: Double

        public init(hits: Int, misses: Int, stored: Int, notStored: Int, bytesRestored: Int64, bytesStored: Int64, secondsSaved: Double) {
            (self.hits, self.misses, self.stored, self.notStored) = (hits, misses, stored, notStored)
            (self.bytesRestored, self.bytesStored, self.secondsSaved) = (bytesRestored, bytesStored, secondsSaved)
        }
    }

    /// One job of a run.
    public struct Job: Codable, Sendable, Equatable {
        /// The job's name.
        public var name: String
        /// `succeeded`, `failed`, `cancelled`, `skipped` or `timedOut`.
        public var status: String
        /// How many times it ran (0 when it never started).
        public var attempts: Int
        /// The exit code of its last process, if that process exited.
        public var exitCode: Int?
        /// The signal that killed its last process, if one did.
        public var signal: Int?
        /// Seconds from the run's start to its first attempt; nil if it never started.
        public var startedAt: Double?
        /// Seconds from the run's start to its end; nil if it never started.
        public var endedAt: Double?
        /// Seconds it ran, counting every attempt; nil if it never started.
        public var duration: Double?
        /// Why it did not succeed; nil when it succeeded.
        public var error: String?
        /// Its command line.
        public var command: String
        /// The file holding its last attempt's output; nil if it never started. A job that
        /// printed nothing has no such file.
        public var output: String?
        /// The key of the cache entry its outputs were restored from, when they were.
        public var restoredFrom: String?

        enum CodingKeys: String, CodingKey {
            case name, status, attempts, exitCode, signal, startedAt, endedAt, duration, error, command, output, restoredFrom
        }

        /// Writes absent values as `null`, so that every job has every key.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(status, forKey: .status)
            try container.encode(attempts, forKey: .attempts)
            try container.encode(exitCode, forKey: .exitCode)
            try container.encode(signal, forKey: .signal)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(endedAt, forKey: .endedAt)
            try container.encode(duration, forKey: .duration)
            try container.encode(error, forKey: .error)
            try container.encode(command, forKey: .command)
            try container.encode(output, forKey: .output)
            try container.encodeIfPresent(restoredFrom, forKey: .restoredFrom)
        }
    }

    /// Gathers a run's report.
    ///
    /// - Parameters:
    ///   - file: the workflow file that ran: its path, its jobs' order and commands.
    ///   - report: the run's report.
    ///   - attempts: every attempt of the run, in any order (``AttemptLog/all``); each job's
    ///     last attempt gives its exit code or signal and its output file.
    ///   - interrupted: whether the run was interrupted by SIGINT or SIGTERM.
    public init(file: WorkflowFile, report: RunReport, attempts: [AttemptRecord], interrupted: Bool = false) {
        var lastAttempts: [String: AttemptRecord] = [:]
        for record in attempts where (lastAttempts[record.job]?.attempt ?? Int.min) <= record.attempt {
            lastAttempts[record.job] = record
        }
        self.file = file.path
        status = report.status.rawValue
        self.interrupted = interrupted
        duration = report.duration.fractionalSeconds
        counts = Dictionary(uniqueKeysWithValues: JobStatus.allCases.map { ($0.rawValue, report.count($0)) })
        criticalPath = report.criticalPath.map(\.rawValue)
        jobs = file.jobs.map { job in
            let outcome = report.outcome(of: JobID(job.name))
            let last = lastAttempts[job.name]
            var exitCode: Int?, signal: Int?
            switch last?.exit {
            case .exited(let code): exitCode = Int(code)
            case .signaled(let number): signal = Int(number)
            case nil: break
            }
            return Job(
                name: job.name, status: (outcome?.status ?? .skipped).rawValue,
                attempts: outcome?.attempts ?? 0, exitCode: exitCode, signal: signal,
                startedAt: outcome?.startedAt?.fractionalSeconds, endedAt: outcome?.endedAt?.fractionalSeconds,
                duration: outcome?.duration?.fractionalSeconds, error: outcome?.error?.description,
                command: job.run, output: last?.outputPath, restoredFrom: last?.restored)
        }
    }

    /// The document as pretty-printed JSON with sorted keys.
    ///
    /// ```swift
    /// print(ReportDocument(file: file, report: report, attempts: log.all).json())
    /// ```
    ///
    /// - Returns: the JSON, ending with a newline.
    public func json() -> String {
        JSONText.encode(self, pretty: true) + "\n"
    }
}
