import Foundation
import SequencerJournal
package import SequencerWorkflowFile
package import SequencerHistory

/// What `sequencer run --watch` listens to for a workflow file, and which jobs a changed path
/// affects: a job's literal inputs, the files its glob inputs match (new ones too), and the
/// paths its last success recorded as `dep:PATH` fingerprint parts (headers named by a
/// depfile); the workflow file itself and the files it includes; and a file coming or going
/// where a template ranges over files (a job comes or goes).
///
/// A job's declared outputs, and everything under `.sequencer/` beside the file, never count:
/// runs write them.
///
/// ```swift
/// let scope = WatchScope(file: file, stored: try journal.fingerprints(workflow: key))
/// scope.change(at: "/src/app/src/a.c")    // .jobs(["compile-a"])
/// scope.selection(affected: ["compile-a"], owed: [])   // compile-a and the jobs that need it
/// ```
package struct WatchScope: Sendable {
    /// What a changed path means.
    package enum Change: Equatable, Sendable {
        /// The workflow file: reload it and run it all.
        case workflow
        /// Inputs of these jobs.
        case jobs(Set<String>)
        /// Nothing to any job.
        case ignored
    }

    private struct Glob: Sendable {
        /// The pattern, absolute.
        var pattern: String
        /// The directory before its first glob segment.
        var root: String
        /// Whether it matches below the root's own entries (`**`, or a glob directory).
        var recursive: Bool
        var job: String
    }

    /// The file, its jobs selected.
    package let file: WorkflowFile
    /// The workflow file, absolute.
    package let workflowPath: String
    /// The workflow file and the files it includes, absolute.
    private var workflowPaths: Set<String> = []
    /// The patterns of the templates over files (`job` empty), and the files they matched,
    /// absolute: a file that comes or goes makes a job come or go.
    private var listings: [Glob] = []
    private var listed: Set<String> = []
    private var literal: [String: Set<String>] = [:]
    private var globs: [Glob] = []
    private var outputs: Set<String> = []
    private let journalDirectory: String
    /// The jobs that need each job.
    private var dependents: [String: [String]] = [:]

    /// - Parameters:
    ///   - file: The workflow file, variables expanded and jobs selected.
    ///   - stored: The fingerprints of the jobs' last successes, for their `dep:` and `input:` parts.
    package init(file: WorkflowFile, stored: [String: Fingerprint]) {
        self.file = file
        let current = FileManager.default.currentDirectoryPath
        workflowPath = WorkflowFile.normalized(file.path, in: current)
        journalDirectory = WorkflowFile.normalized(file.directory, in: current) + "/.sequencer"
        workflowPaths = Set([workflowPath] + file.includes.map { WorkflowFile.normalized($0, in: current) })
        let fileDirectory = WorkflowFile.normalized(file.directory, in: current)
        for listing in file.listings {
            listed.formUnion(listing.files.map { WorkflowFile.normalized($0, in: fileDirectory) })
            listings += listing.patterns.map { Self.glob(WorkflowFile.normalized($0, in: fileDirectory), job: "") }
        }
        for job in file.jobs {
            let directory = file.workingDirectory(of: job)
            outputs.formUnion(file.outputPaths(of: job))
            for need in job.needs { dependents[need.name, default: []].append(job.name) }
            for input in job.inputs {
                let path = WorkflowFile.normalized(input, in: directory)
                guard FilePattern.isGlob(input) else {
                    literal[path, default: []].insert(job.name)
                    continue
                }
                globs.append(Self.glob(path, job: job.name))
            }
            for key in (stored[job.name]?.parts ?? [:]).keys {
                guard let colon = key.firstIndex(of: ":") else { continue }
                let kind = key[..<colon]
                guard kind == "dep" || kind == "input" else { continue }
                literal[WorkflowFile.normalized(String(key[key.index(after: colon)...]), in: directory), default: []].insert(job.name)
            }
        }
    }

    private static func glob(_ pattern: String, job: String) -> Glob {
        let segments = pattern.split(separator: "/")
        let fixed = segments.prefix { !FilePattern.isGlob(String($0)) }
        return Glob(pattern: pattern, root: "/" + fixed.joined(separator: "/"), recursive: segments.count - fixed.count > 1, job: job)
    }

    /// What a change at `path` (absolute) means.
    package func change(at path: String) -> Change {
        if workflowPaths.contains(path) { return .workflow }
        // A file a template ranges over that came or went: the file's jobs are others.
        if listings.contains(where: { path.hasPrefix($0.root + "/") && !FilePattern.matching($0.pattern, among: [path]).isEmpty }),
           listed.contains(path) != FileManager.default.fileExists(atPath: path) {
            return .workflow
        }
        if path == journalDirectory || path.hasPrefix(journalDirectory + "/") || outputs.contains(path) { return .ignored }
        var jobs = literal[path] ?? []
        for glob in globs where path.hasPrefix(glob.root + "/") && !jobs.contains(glob.job) {
            if !FilePattern.matching(glob.pattern, among: [path]).isEmpty { jobs.insert(glob.job) }
        }
        return jobs.isEmpty ? .ignored : .jobs(jobs)
    }

    /// The directories to watch: each literal input's and dep's directory, each glob's root
    /// (and, for a glob that matches deeper, every directory under it but hidden ones), and
    /// the workflow file's directory. A directory that does not exist yet is replaced by its
    /// nearest existing parent, so that its creation is seen.
    /// - Parameter walking: whether to walk the deep globs' roots; once they are watched, new
    ///   directories under them are watched as they are made, without walking again.
    package func directories(walking: Bool = true) -> Set<String> {
        var directories: Set<String> = Set(workflowPaths.map(Self.parent(of:)))
        for path in literal.keys { directories.insert(Self.existing(Self.parent(of: path))) }
        for glob in globs + listings {
            let root = Self.existing(glob.root)
            directories.insert(root)
            guard walking, glob.recursive, root == glob.root else { continue }
            directories.formUnion(Self.subdirectories(of: root))
        }
        return directories
    }

    /// The jobs to run after changes: the `affected` jobs and the `owed` ones (that the last run
    /// did not finish), and every job that needs one of them, directly or not.
    /// - Complexity: O(jobs + needs).
    package func selection(affected: Set<String>, owed: Set<String>) -> Set<String> {
        var selected: Set<String> = []
        var stack = Array(affected.union(owed))
        while let job = stack.popLast() {
            guard selected.insert(job).inserted else { continue }
            stack += dependents[job] ?? []
        }
        return selected.intersection(file.jobs.map(\.name))
    }

    /// Whether `directory` is one a watch adds when it is created: under a glob's root that
    /// matches deeper, or on the way to a watched path that did not exist. Not a hidden one
    /// (globs do not match in them), such as `.sequencer`.
    package func watchesNew(_ directory: String) -> Bool {
        guard !(directory as NSString).lastPathComponent.hasPrefix(".") else { return false }
        return (globs + listings).contains { $0.recursive && directory.hasPrefix($0.root + "/") }
            || literal.keys.contains { $0.hasPrefix(directory + "/") }
            || (globs + listings).contains { $0.root == directory || $0.root.hasPrefix(directory + "/") }
    }

    private static func parent(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "/" : parent
    }

    /// `directory`, or its nearest parent that exists.
    private static func existing(_ directory: String) -> String {
        var directory = directory
        var isDirectory: ObjCBool = false
        while directory != "/", !(FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue) {
            directory = parent(of: directory)
        }
        return directory
    }

    /// Every directory under `root`, hidden ones (and what they hold) left out.
    package static func subdirectories(of root: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var directories: [String] = []
        while let relative = walker.nextObject() as? String {
            guard walker.fileAttributes?[.type] as? FileAttributeType == .typeDirectory else { continue }
            if (relative as NSString).lastPathComponent.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            directories.append(root + "/" + relative)
        }
        return directories
    }
}
