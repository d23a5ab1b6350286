public import Foundation
public import SequencerCache
public import SequencerJournal
public import SequencerWorkflowFile

/// The cache keys of a workflow file's jobs. A job's key is the digest of what it is made of,
/// written relative to the project's root (the file's directory) so that two checkouts share:
/// - its command as it runs (its variables replaced by their values);
/// - its working directory;
/// - its tool, by content (``ToolIdentity``);
/// - the variables it sees, by name and value: the file's and its own (a cached job sees no
///   others but the base set, ``baseVariables``, whose values are left out of the key);
/// - each declared input, by content (a glob by what it matches now), but those declared
///   `volatile` (a build stamp), which are in it by name only;
/// - its outputs' paths, and its timeout.
///
/// A job with no outputs has no key: it is never cached.
public struct JobKeys: Sendable {
    /// The variables a cached job sees besides its file's and its own, from the environment it
    /// is run in. Their values are not in the key: `PATH` chooses the tool, which is keyed by
    /// content, and the others name the user and their machine, not what a job makes. A job
    /// whose outputs depend on one declares it in its `env`.
    public static let baseVariables = ["PATH", "HOME", "TMPDIR", "USER", "LOGNAME", "LANG", "TERM"]

    public let file: WorkflowFile
    public let root: ProjectRoot
    let hasher: FileHasher
    let tools: ToolIdentity
    let expansions: PatternExpansions

    public init(file: WorkflowFile, hasher: FileHasher = FileHasher(), expansions: PatternExpansions = PatternExpansions()) {
        self.file = file
        root = ProjectRoot(file.directory)
        self.hasher = hasher
        tools = ToolIdentity()
        self.expansions = expansions
    }

    /// The variables a cached job runs with: the base set taken from `inherited`, then the
    /// file's, then its own.
    public func environment(of job: WorkflowFile.Job, inherited: [String: String]) -> [String: String] {
        var variables: [String: String] = [:]
        for name in Self.baseVariables { variables[name] = inherited[name] }
        return variables.merging(file.environment) { $1 }.merging(job.environment) { $1 }
    }

    /// What goes into `job`'s key, with its inputs as they are now; nil when it is not cached
    /// (it has no outputs).
    /// - Parameter inputs: hashes the inputs (by default the keys' hasher, which keeps each
    ///   file's hash while its size, time and inode stay; a fresh one reads every file).
    public func preimage(
        of job: WorkflowFile.Job, inherited: [String: String] = ProcessInfo.processInfo.environment, inputs: FileHasher? = nil
    ) -> KeyPreimage? {
        guard !job.outputEntries.isEmpty else { return nil }
        let hasher = inputs ?? self.hasher
        let directory = self.directory(of: job)
        let variables = environment(of: job, inherited: inherited)
        let command = DisplayCommand.text(of: job.run, environment: variables)
        var entries: [KeyPreimage.Entry] = [
            .init(.format, KeyPreimage.format),
            .init(.command, root.relativeText(command)),
            .init(.workingDirectory, root.relative(directory)),
            .init(.timeout, job.timeout.map { "\($0.components.seconds).\($0.components.attoseconds)" } ?? "none"),
        ]
        for tool in tools.identify(command: command, path: variables["PATH"], directory: directory) {
            entries.append(.init(.tool, tool.name, tool.digest ?? "not found"))
        }
        let declared = file.environment.merging(job.environment) { $1 }
        for (name, value) in declared { entries.append(.init(.environment, name, root.relativeText(value))) }
        let volatile = volatilePaths(of: job)
        for path in volatile { entries.append(.init(.volatile, path, "")) }
        for entry in job.inputEntries {
            let paths = expansions.expand(entry.path, in: directory)
            if paths.isEmpty, FilePattern.isGlob(entry.path) { entries.append(.init(.input, entry.path, "no files")) }
            for path in paths {
                let resolved = path.hasPrefix("/") ? path : directory + "/" + path
                let relative = root.relative(resolved)
                guard !volatile.contains(relative) else { continue }
                entries.append(.init(.input, relative, hasher.hash(resolved) ?? "missing"))
            }
        }
        for output in job.outputEntries {
            let resolved = output.path.hasPrefix("/") ? output.path : directory + "/" + output.path
            entries.append(.init(.output, root.relative(resolved), ""))
        }
        return KeyPreimage(entries)
    }

    /// The job's volatile inputs, relative to the root (a glob by what it matches now, or as
    /// written when it matches nothing).
    public func volatilePaths(of job: WorkflowFile.Job) -> Set<String> {
        let directory = self.directory(of: job)
        var paths: Set<String> = []
        for entry in job.volatileEntries {
            let matched = expansions.expand(entry.path, in: directory)
            if matched.isEmpty { paths.insert(entry.path) }
            for path in matched { paths.insert(root.relative(path.hasPrefix("/") ? path : directory + "/" + path)) }
        }
        return paths
    }

    /// The directory `job` runs in, absolute and standard.
    public func directory(of job: WorkflowFile.Job) -> String {
        let directory = file.directory(of: job)
        return ProjectRoot(directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory).path
    }

    /// `path` as a job in `directory` names it, absolute.
    public func absolute(_ path: String, in directory: String) -> String {
        path.hasPrefix("/") ? path : directory + "/" + path
    }
}
