import Foundation

extension WorkflowFile {
    /// The directory a job's relative paths start from, as the file gives it: its `cwd` under
    /// the file's directory, or the file's directory. Not made absolute (see
    /// ``workingDirectory(of:)``).
    public func directory(of job: Job) -> String {
        guard let cwd = job.workingDirectory else { return directory }
        return cwd.hasPrefix("/") ? cwd : directory + "/" + cwd
    }

    /// The directory a job runs in, absolute and without `.` or `..`: its `cwd` taken from the
    /// file's directory, or the file's directory.
    public func workingDirectory(of job: Job) -> String {
        Self.normalized(directory(of: job), in: FileManager.default.currentDirectoryPath)
    }

    /// A job's `outputs` as absolute paths without `.` or `..`, taken from its directory.
    ///
    /// ```swift
    /// file.outputPaths(of: link)   // ["/src/app/programs/zstd"] for `cwd: programs`, `outputs: [zstd]`
    /// ```
    public func outputPaths(of job: Job) -> [String] {
        let directory = workingDirectory(of: job)
        return job.outputs.map { Self.normalized($0, in: directory) }
    }

    /// `path` made absolute against `directory` (unless it is absolute), without `.`, `..` or
    /// doubled slashes, by its text alone: symbolic links stay as they are, so two spellings of
    /// a path compare equal without asking the file system.
    public static func normalized(_ path: String, in directory: String) -> String {
        var parts: [Substring] = []
        for part in (path.hasPrefix("/") ? path : directory + "/" + path).split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
