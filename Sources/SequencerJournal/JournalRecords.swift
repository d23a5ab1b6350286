/// A run as the journal keeps it.
public struct JournalRun: Sendable, Codable, Hashable {
    public let id: Int64
    /// The workflow's name: for the command line, the workflow file's path.
    public let workflow: String
    /// What the recorder's caller kept with the run (the command line: its options, as JSON).
    public let info: String?
    /// `running` while it runs, or when its process died; else how it ended (`succeeded`,
    /// `failed`, `cancelled`, `timedOut`).
    public let status: String
    /// Nanoseconds since 1970.
    public let startedAt: Int64
    public let endedAt: Int64?
    public let jobCount: Int
    public let succeeded: Int
    public let failed: Int
    public let skipped: Int
    public let cancelled: Int
    public let timedOut: Int
    /// How many times it was started: 1, plus one per resume.
    public let sessions: Int

    /// From its first start to its last end, in seconds; nil while it has not ended.
    public var duration: Double? { endedAt.map { Double($0 - startedAt) / 1e9 } }
}

/// A job of a run, as the journal keeps it.
public struct JournalJob: Sendable, Codable, Hashable {
    public let name: String
    /// Its position in the run.
    public let position: Int
    /// `running` (it was running when the run's process stopped), or a `JobStatus`.
    public let status: String
    /// Why it did not succeed (a `JobError.Code`), `upToDate`, or nil.
    public let code: String?
    public let error: String?
    public let attempts: Int
    /// Nanoseconds since 1970.
    public let startedAt: Int64?
    public let endedAt: Int64?
    /// The job that added it while it ran.
    public let parent: String?

    public var duration: Double? {
        guard let startedAt, let endedAt else { return nil }
        return Double(endedAt - startedAt) / 1e9
    }
}

/// One attempt of a job, as the command line records it.
public struct JournalAttempt: Sendable, Codable, Hashable {
    public let job: String
    /// 1 for the first.
    public let attempt: Int
    /// Nanoseconds since 1970.
    public let startedAt: Int64
    public let endedAt: Int64
    /// How it ended, for people: `exit code 3`, `killed by SIGTERM`, `succeeded`.
    public let exit: String
    /// The process's exit code, when it exited.
    public let exitCode: Int?
    /// The signal that killed the process, when one did.
    public let signal: Int?
    /// The file holding its output.
    public let output: String?

    public init(
        job: String, attempt: Int, startedAt: Int64, endedAt: Int64, exit: String, exitCode: Int?, signal: Int?,
        output: String?
    ) {
        self.signal = signal
        self.job = job
        self.attempt = attempt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.exit = exit
        self.exitCode = exitCode
        self.output = output
    }
}

/// What says whether a file changed without reading it: its size, modification time and inode.
public struct FileStamp: Sendable, Hashable {
    public let size: Int64
    /// Nanoseconds since 1970.
    public let modified: Int64
    public let inode: Int64

    public init(size: Int64, modified: Int64, inode: Int64) {
        self.size = size
        self.modified = modified
        self.inode = inode
    }
}

/// The fingerprint of a job's last success, and the parts it was made of (`command`, `env`,
/// `input:PATH`, `need:JOB`, each with its hash), to tell what changed.
public struct JournalFingerprint: Sendable, Hashable {
    public let fingerprint: String
    public let parts: [String: String]
    /// The run it succeeded in.
    public let runID: Int64

    public init(fingerprint: String, parts: [String: String], runID: Int64) {
        self.fingerprint = fingerprint
        self.parts = parts
        self.runID = runID
    }

    /// The parts as stored: a line per part, `KEY<TAB>HASH`, sorted.
    static func encode(_ parts: [String: String]) -> String {
        parts.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)" }.joined(separator: "\n")
    }

    static func decode(_ text: String) -> [String: String] {
        var parts: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let tab = line.lastIndex(of: "\t") else { continue }
            parts[String(line[..<tab])] = String(line[line.index(after: tab)...])
        }
        return parts
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
