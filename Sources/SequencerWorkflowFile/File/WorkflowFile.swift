public import Sequencer

/// A workflow file: shell jobs with their needs and options, as written in YAML.
///
/// ```yaml
/// version: 1
/// lanes:
///   network: 2
/// jobs:
///   fetch-config:
///     run: curl -sf https://example.invalid/config > config.json
///     lane: network
///     timeout: 10s
///     retry: { attempts: 3, backoff: 200ms }
/// ```
///
/// Read one with ``load(path:)`` (or ``parse(_:path:)``); every problem is reported with
/// its line and column in a ``WorkflowFileError``.
public struct WorkflowFile: Sendable {
    /// The file's path, as given.
    public var path: String
    /// The directory jobs run in, unless they set `cwd`: the file's own directory.
    public var directory: String
    /// The format version (only 1 exists).
    public var version: Int
    /// The lanes, in file order.
    public var lanes: [Lane]
    /// Variables every job gets, before its own `env`.
    public var environment: [String: String]
    /// The jobs, in file order.
    public var jobs: [Job]

    /// A named concurrency limit.
    public struct Lane: Sendable, Hashable {
        public var name: String
        public var width: Int
        /// Whether jobs of the lane start in file order (the default).
        public var ordered: Bool
        public var location: SourceLocation
    }

    /// A path written in the file (an entry of a job's `inputs` or `outputs`): its text and where.
    public struct PathEntry: Sendable, Hashable {
        /// The path (or glob), as written, or with its variables expanded
        /// (see ``WorkflowFile/expandingVariables(environment:)``).
        public var path: String
        /// Where the entry is written.
        public var location: SourceLocation

        public init(path: String, location: SourceLocation) {
            self.path = path
            self.location = location
        }
    }

    /// A need of a job: the job it names and where.
    public struct Need: Sendable, Hashable {
        public var name: String
        public var location: SourceLocation
    }

    /// A shell job.
    public struct Job: Sendable {
        /// The job's name: its key under `jobs`.
        public var name: String
        /// Where the name is.
        public var location: SourceLocation
        /// The command line, run by `/bin/sh -c` (or directly when it has no shell syntax).
        public var run: String
        public var needs: [Need]
        public var lane: String?
        /// Where `lane` is, for errors about it.
        var laneLocation: SourceLocation?
        public var priority: Priority
        public var timeout: Duration?
        public var retry: RetryPolicy
        /// Variables added to the environment for this job.
        public var environment: [String: String]
        /// The working directory, relative to the file's directory.
        public var workingDirectory: String?
        /// Where `cwd` is written.
        public var workingDirectoryLocation: SourceLocation?
        /// Files (or globs) the job reads, each with where it is written.
        public var inputEntries: [PathEntry]
        /// Files the job writes, each with where it is written.
        public var outputEntries: [PathEntry]

        /// Files (or globs) the job reads.
        public var inputs: [String] { inputEntries.map(\.path) }
        /// Files the job writes.
        public var outputs: [String] { outputEntries.map(\.path) }
    }

    /// The job with a name.
    public func job(named name: String) -> Job? { jobs.first { $0.name == name } }
}
