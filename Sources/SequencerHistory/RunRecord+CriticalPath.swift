public import Sequencer

extension RunRecord {
    /// The run's critical path, by the library's rule (``CriticalPath``) over the recorded times
    /// and `graph`'s needs and lanes: the path the run itself reported, for `sequencer trace`,
    /// `show` and the web page.
    public func criticalPath(graph: HistoryGraph) -> [CriticalPath.Step] {
        var declared: [String: HistoryGraph.Job] = [:]
        for job in graph.jobs where declared[job.name] == nil { declared[job.name] = job }
        func offset(_ time: Int64?) -> Duration? { time.map { .nanoseconds($0 - run.startedAt) } }
        let schedule = jobs.map { job in
            CriticalPath.Job(
                id: JobID(job.name), needs: declared[job.name]?.needs.map { JobID($0) } ?? [],
                lane: declared[job.name]?.lane, parent: job.parent.map { JobID($0) },
                startedAt: offset(job.startedAt), endedAt: offset(job.endedAt ?? job.startedAt), tookNoTime: job.state == .upToDate)
        }
        return CriticalPath.steps(of: schedule)
    }
}
