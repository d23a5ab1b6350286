public import SequencerHistory
public import SequencerWorkflowFile

extension HistoryGraph {
    /// `file`'s graph: its lanes, and each job's needs, lane, command and working directory.
    public init(file: WorkflowFile) {
        self.init(
            lanes: file.lanes.map { Lane(name: $0.name, width: $0.width) },
            jobs: file.jobs.map { job in
                Job(name: job.name, needs: job.needs.map(\.name), lane: job.lane, run: job.run, directory: job.workingDirectory)
            })
    }
}
