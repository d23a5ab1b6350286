import SequencerWorkflowFile

extension WorkflowFile {
    /// The directory a job's relative paths are in: its `cwd` under the file's directory, or
    /// the file's directory.
    func directory(of job: Job) -> String {
        guard let cwd = job.workingDirectory else { return directory }
        return resolve(cwd, in: directory)
    }
}

/// `path` under `directory`, unless it is absolute.
func resolve(_ path: String, in directory: String) -> String {
    path.hasPrefix("/") ? path : directory + "/" + path
}

/// `path` made absolute from `current` and without `.`, `..` or repeated `/`, without asking
/// the file system (symbolic links stay as they are), so that two spellings of a path compare
/// equal.
func normalizedPath(_ path: String, from current: String) -> String {
    var parts: [Substring] = []
    for part in resolve(path, in: current).split(separator: "/") {
        switch part {
        case ".": continue
        case "..": _ = parts.popLast()
        default: parts.append(part)
        }
    }
    return "/" + parts.joined(separator: "/")
}
