public import Sequencer
public import SequencerOutput

extension ChromeTrace {
    /// Lays out the attempts of a workflow file's run: a slice per attempt, with its command,
    /// how it ended and its output file; lanes in file order.
    ///
    /// ```swift
    /// let report = await run.report()
    /// let trace = ChromeTrace(file: file, report: report, attempts: log.all)
    /// try trace.json().write(toFile: "run.trace.json", atomically: true, encoding: .utf8)
    /// ```
    ///
    /// - Parameters:
    ///   - file: the workflow file that ran: the jobs' lanes and commands, and the trace's name.
    ///   - report: the run's report: each job's status, and the critical path.
    ///   - attempts: every attempt of the run, in any order (``AttemptLog/all``).
    public init(file: WorkflowFile, report: RunReport, attempts: [AttemptRecord]) {
        var statuses: [String: String] = [:]
        var spans: [String: (start: Int64, end: Int64)] = [:]
        let path = report.criticalPathSteps
        for name in Set(attempts.map(\.job)).union(path.map(\.job.rawValue)) {
            let outcome = report.outcome(of: JobID(name))
            statuses[name] = outcome?.status.rawValue ?? "unknown"
            if let start = outcome?.startedAt, let end = outcome?.endedAt {
                spans[name] = (start.wholeMicroseconds, max(start.wholeMicroseconds, end.wholeMicroseconds))
            }
        }
        self.init(Self.input(file: file, attempts: attempts, statuses: statuses, criticalPath: path, spans: spans))
    }

    /// Lays out attempts with a critical path given apart (the tests' way to draw one path).
    ///
    /// - Parameters:
    ///   - statuses: how each job ended, by name.
    ///   - criticalPath: the critical path (``CriticalPath/steps(of:)`` over the run's jobs).
    package init(file: WorkflowFile, attempts: [AttemptRecord], statuses: [String: String], criticalPath: [CriticalPath.Step]) {
        self.init(Self.input(file: file, attempts: attempts, statuses: statuses, criticalPath: criticalPath, spans: [:]))
    }

    private static func input(
        file: WorkflowFile, attempts: [AttemptRecord], statuses: [String: String], criticalPath: [CriticalPath.Step],
        spans: [String: (start: Int64, end: Int64)]
    ) -> Input {
        Input(
            title: "sequencer: \(file.path)",
            jobs: file.jobs.map { Job(name: $0.name, command: $0.run, lane: $0.lane) },
            lanes: file.lanes.map(\.name),
            attempts: attempts.map {
                Attempt(
                    job: $0.job, attempt: $0.attempt, startedAt: $0.startedAt, endedAt: $0.endedAt, exit: $0.exitSummary,
                    output: $0.outputPath)
            },
            statuses: statuses, criticalPath: criticalPath, spans: spans)
    }
}
