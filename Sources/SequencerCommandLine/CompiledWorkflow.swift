import SequencerBuild
import SequencerWorkflowFile

/// Workflow files for `run`, read from a compiled copy when the file has not changed (see
/// `CompiledWorkflowCache`).
enum CompiledWorkflow {
    /// The file, or (after printing its errors) exit status 2.
    static func load(_ path: String) throws -> WorkflowFile {
        try loadWithDigests(path).file
    }

    /// The file, and the digests of it and of its includes as loaded (nil when they are not
    /// known); or (after printing its errors) exit status 2.
    static func loadWithDigests(_ path: String) throws -> (file: WorkflowFile, digests: (fileDigest: String, includeDigests: [String])?) {
        let loaded: CompiledWorkflowCache.Loaded
        do {
            loaded = try CompiledWorkflowCache.load(path: path)
        } catch {
            return (try loadOrExit(path), nil)  // reports every error
        }
        if let error = loaded.saveError {
            log.debug("cannot keep a compiled copy of the workflow file", metadata: ["path": "\(path)", "error": "\(error)"])
        }
        guard let fileDigest = loaded.fileDigest, let includeDigests = loaded.includeDigests else { return (loaded.file, nil) }
        return (loaded.file, (fileDigest, includeDigests))
    }
}
