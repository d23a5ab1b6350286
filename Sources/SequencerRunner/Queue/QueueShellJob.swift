import Foundation
package import SequencerWorkflowFile

/// A workflow's job as the durable queue carries it to a worker: what the submitting
/// `sequencer run --queue` read from the file. The worker runs it in its own copy of the
/// workflow's directory.
package struct QueueShellJob: Codable, Sendable {
    /// The job's name in the file.
    package var name: String
    /// Its command (the `run` line), run by /bin/sh -c or directly.
    package var command: String
    /// The file's and the job's `env`, which the worker adds to its own environment.
    package var environment: [String: String]
    /// Its `working-directory`, relative to the workflow's directory (or absolute).
    package var workingDirectory: String?
    /// Its outputs, whose parent directories are made before it runs.
    package var outputs: [String]
    /// Whether it runs even when it is up to date (`--force`); nil in jobs of older submitters.
    package var force: Bool?

    package init(_ job: WorkflowFile.Job, in file: WorkflowFile, force: Bool = false) {
        name = job.name
        command = job.run
        environment = file.environment.merging(job.environment) { $1 }
        workingDirectory = job.workingDirectory
        outputs = job.outputs
        self.force = force
    }

    /// The durable kind of a workflow's jobs in a lane (or in none): workers serve the
    /// workflows whose files they have, in every lane or in those of `worker --lanes`.
    package static func kind(ofWorkflow name: String, lane: String?) -> String { "workflow:" + name + (lane.map { "@" + $0 } ?? "") }

    /// A workflow's name in a queue: its directory's name (a workflow file is named for the
    /// project it sits in).
    package static func workflowName(of file: WorkflowFile) -> String { workflowName(ofFile: file.path) }

    /// A workflow's name in a queue, from its file's path alone (for `runs` and `show`).
    package static func workflowName(ofFile path: String) -> String {
        URL(fileURLWithPath: absolutePath(path)).standardizedFileURL.deletingLastPathComponent().lastPathComponent
    }

    /// A lane of a workflow in the queue: lanes are the queue's, shared by every workflow, so
    /// each workflow's are its own.
    package static func lane(_ lane: String, ofWorkflow name: String) -> String { name + "/" + lane }
}
