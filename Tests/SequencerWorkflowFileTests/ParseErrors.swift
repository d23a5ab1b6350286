@testable import SequencerWorkflowFile

/// The errors of parsing `text` as the workflow file at `path`, each as `LINE:COLUMN MESSAGE`,
/// in order; none when it parses.
func parseErrors(_ text: String, path: String) -> [String] {
    do {
        _ = try WorkflowFile.parse(text, path: path)
        return []
    } catch {
        return error.diagnostics.map { "\($0.location) \($0.message)" }
    }
}
