public import CoreMetrics
public import Sequencer

/// The names of a run's metrics (``RunMetrics/record(_:workflow:factory:)``). Every one has the
/// labels `workflow` and `status`, always.
public enum RunMetricNames {
    /// Counter: runs ended, by the run's status (`succeeded`, `failed`, `cancelled`).
    public static let runs = "sequencer_runs_total"
    /// Timer: a run's wall time, by the run's status.
    public static let runTime = "sequencer_run_seconds"
    /// Counter: the jobs of ended runs, by the job's status (`succeeded`, `failed`, `cancelled`,
    /// `skipped`, `timed_out`).
    public static let jobs = "sequencer_run_jobs_total"
    /// Timer: the length of a run's critical path (until its last job ended), by the run's status.
    public static let criticalPath = "sequencer_run_critical_path_seconds"
}

/// A run's figures, reported through swift-metrics once it ended: how many runs end how, how
/// long they take, how their jobs end, and how long their critical path is.
///
/// ```swift
/// let report = await run.report()
/// RunMetrics.record(report, workflow: "startup")
/// ```
///
/// `workflow` is a label: a name from your code (a handful per app), never an ID.
public enum RunMetrics {
    /// Records `report` to `factory` (nil: the one bootstrapped with `MetricsSystem.bootstrap`).
    public static func record(_ report: RunReport, workflow: String, factory: (any MetricsFactory)? = nil) {
        let factory = factory ?? MetricsSystem.factory
        let status = report.status.rawValue
        let labels = [("workflow", workflow), ("status", status)]
        Counter(label: RunMetricNames.runs, dimensions: labels, factory: factory).increment()
        Timer(label: RunMetricNames.runTime, dimensions: labels, factory: factory).recordNanoseconds(report.duration.nanoseconds)
        for job in JobStatus.allCases {
            let count = report.count(job)
            guard count > 0 else { continue }
            let name = job == .timedOut ? "timed_out" : job.rawValue
            Counter(label: RunMetricNames.jobs, dimensions: [("workflow", workflow), ("status", name)], factory: factory)
                .increment(by: count)
        }
        let path = report.criticalPathSteps.last?.endedAt ?? .zero
        Timer(label: RunMetricNames.criticalPath, dimensions: labels, factory: factory).recordNanoseconds(path.nanoseconds)
    }
}
