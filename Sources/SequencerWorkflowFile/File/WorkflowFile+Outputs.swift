import Foundation

extension WorkflowFile {
    /// The directory a job runs in, absolute and without `.` or `..`: its `cwd` taken from the
    /// file's directory, or the file's directory.
    public func workingDirectory(of job: Job) -> String {
        let fileDirectory = Self.normalized(directory, in: FileManager.default.currentDirectoryPath)
        return job.workingDirectory.map { Self.normalized($0, in: fileDirectory) } ?? fileDirectory
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

    /// `path` made absolute against `directory`, without `.`, `..` or doubled slashes.
    static func normalized(_ path: String, in directory: String) -> String {
        URL(fileURLWithPath: path.hasPrefix("/") ? path : directory + "/" + path).standardizedFileURL.path
    }
}
