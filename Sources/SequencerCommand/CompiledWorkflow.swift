import SequencerBuild
import SequencerWorkflowFile

/// Workflow files for `run`, read from a compiled copy when the file has not changed (see
/// `CompiledWorkflowCache`).
enum CompiledWorkflow {
    /// The file, or (after printing its errors) exit status 2.
    static func load(_ path: String) throws -> WorkflowFile {
        let loaded: CompiledWorkflowCache.Loaded
        do {
            loaded = try CompiledWorkflowCache.load(path: path)
        } catch {
            return try loadOrExit(path)  // reports every error
        }
        if let error = loaded.saveError {
            log.debug("cannot keep a compiled copy of the workflow file", metadata: ["path": "\(path)", "error": "\(error)"])
        }
        return loaded.file
    }
}
