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
    /// The jobs, in file order: those of included files first, each template's jobs in the
    /// order of its items.
    public var jobs: [Job]
    /// The files this one includes (directly or not), as diagnostics name them, in the order
    /// they are read.
    public var includes: [String] = []
    /// The text of each of ``includes`` as the file was read with it (empty for a file read
    /// from its compiled form): what a digest of the includes must be taken of, since a file
    /// may change after it was read.
    public var includedTexts: [String] = []
    /// The file lists that templates range over (`for: { files: … }`), as they were when the
    /// file was read: a copy of the file read from its compiled form is current only while
    /// these lists are (see ``listingsAreCurrent()``).
    public var listings: [FileListing] = []
    /// Problems that do not keep the file from running: a template whose files are none, a
    /// job that needs a family of jobs that is empty.
    public var warnings: [Diagnostic] = []

    /// The files a template ranges over: its patterns, those it excludes, and what they
    /// matched (relative to the file's directory).
    public struct FileListing: Sendable, Hashable {
        public var patterns: [String]
        public var excluded: [String]
        public var files: [String]

        public init(patterns: [String], excluded: [String], files: [String]) {
            self.patterns = patterns
            self.excluded = excluded
            self.files = files
        }

        /// Whether the patterns match the same files in `directory` (the workflow file's) now.
        public func isCurrent(in directory: String) -> Bool {
            WorkflowFile.listFiles(patterns, excluding: excluded, in: directory) == files
        }
    }

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
        /// The file, written by the command as `cc -MD` writes one, that lists the files the
        /// job read (`depfile`): they count as its inputs on the next run.
        public var depfile: PathEntry?
        /// Whether a cache may keep and restore its outputs (`cache: false` says no). A job
        /// without outputs, or that inherits the environment, is never cached either.
        public var cache = true
        /// Whether, with a cache, it sees this process's whole environment (`inherit-env:
        /// true`) rather than the closed one: the named opt-out, which makes it uncacheable.
        public var inheritsEnvironment = false
        /// Files it reads that are left out of its cache key (`volatile`), such as a build stamp:
        /// a change to them alone restores an older result.
        public var volatileEntries: [PathEntry] = []
        /// The file the job is written in: the workflow file, or a file it includes.
        public var definedIn: String
        /// The template and item the job was made from, for errors found after reading; not
        /// kept in the compiled form.
        var origin: Origin?

        /// Files (or globs) the job reads.
        public var inputs: [String] { inputEntries.map(\.path) }
        /// Files the job writes.
        public var outputs: [String] { outputEntries.map(\.path) }
        /// Whether a cache may keep its outputs: it has some, and neither opts out.
        public var isCacheable: Bool { cache && !inheritsEnvironment && !outputEntries.isEmpty }
    }

    /// The template and item a job was made from.
    struct Origin: Sendable, Hashable, CustomStringConvertible {
        /// The template's name, as written (`compile-${stem}`).
        var template: String
        var item: String
        /// `in template 'compile-${stem}', for item 'src/a.c'`
        var description: String { "in template '\(template)', for item '\(item)'" }
    }

    /// The job with a name.
    public func job(named name: String) -> Job? { jobs.first { $0.name == name } }
}
