public import Sequencer
public import SequencerJournal
public import SequencerWorkflowFile

/// The critical path of a recorded run, by the library's rule (``CriticalPath``) over the
/// recorded times and the file's needs and lanes: the same path the run itself reported, for
/// `sequencer trace` and `sequencer serve`.
public enum RecordedCriticalPath {
    /// The critical path of the journal's `jobs` of a run that started at `runStart`.
    public static func steps(jobs: [JournalJob], file: WorkflowFile, runStart: Int64) -> [CriticalPath.Step] {
        func offset(_ time: Int64?) -> Duration? { time.map { .nanoseconds($0 - runStart) } }
        return steps(
            jobs.map { ($0.name, offset($0.startedAt), offset($0.endedAt ?? $0.startedAt), $0.status == "upToDate", $0.parent) }, file: file)
    }

    /// The critical path of jobs with their times from the run's start, by the file's needs
    /// and lanes.
    public static func steps(
        _ jobs: [(name: String, startedAt: Duration?, endedAt: Duration?, upToDate: Bool, parent: String?)], file: WorkflowFile
    ) -> [CriticalPath.Step] {
        steps(jobs, graph: JournalGraph(file: file))
    }

    /// The critical path of the journal's `jobs` of a run that started at `runStart`, by the
    /// needs and lanes of the graph the run recorded.
    public static func steps(jobs: [JournalJob], graph: JournalGraph, runStart: Int64) -> [CriticalPath.Step] {
        func offset(_ time: Int64?) -> Duration? { time.map { .nanoseconds($0 - runStart) } }
        return steps(
            jobs.map { ($0.name, offset($0.startedAt), offset($0.endedAt ?? $0.startedAt), $0.status == "upToDate", $0.parent) }, graph: graph)
    }

    static func steps(
        _ jobs: [(name: String, startedAt: Duration?, endedAt: Duration?, upToDate: Bool, parent: String?)], graph: JournalGraph
    ) -> [CriticalPath.Step] {
        var declared: [String: JournalGraph.Job] = [:]
        for job in graph.jobs where declared[job.name] == nil { declared[job.name] = job }
        let schedule = jobs.map { job in
            CriticalPath.Job(
                id: JobID(job.name), needs: declared[job.name]?.needs.map { JobID($0) } ?? [],
                lane: declared[job.name]?.lane, parent: job.parent.map { JobID($0) },
                startedAt: job.startedAt, endedAt: job.endedAt, tookNoTime: job.upToDate)
        }
        return CriticalPath.steps(of: schedule)
    }
}

extension JournalGraph {
    /// `file`'s graph: its lanes, and each job's needs, lane, command and working directory.
    public init(file: WorkflowFile) {
        self.init(
            lanes: file.lanes.map { Lane(name: $0.name, width: $0.width) },
            jobs: file.jobs.map { job in
                Job(name: job.name, needs: job.needs.map(\.name), lane: job.lane, run: job.run, directory: job.workingDirectory)
            })
    }
}
