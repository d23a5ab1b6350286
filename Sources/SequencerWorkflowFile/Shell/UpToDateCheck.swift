/// Decides which jobs of a ``ShellWorkflow`` are up to date (`UpToDate` in `SequencerBuild` does,
/// from fingerprints of each job's command, environment, inputs and needs).
public protocol UpToDateCheck: Sendable {
    /// Called before a job's first attempt, once the jobs it needs have ended. True skips the
    /// job as up to date.
    func isUpToDate(_ job: WorkflowFile.Job) -> Bool
    /// Called when the job's command succeeded.
    func succeeded(_ job: WorkflowFile.Job)
}
