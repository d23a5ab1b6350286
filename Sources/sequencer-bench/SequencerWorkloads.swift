import Sequencer

/// Job options turned on for the options-overhead rows.
struct JobSettings: OptionSet, Sendable {
    let rawValue: Int
    /// Jobs spread round-robin over 4 ordered lanes of width 2.
    static let lanes = JobSettings(rawValue: 1)
    /// Priorities round-robin over `.background ... .userInteractive`.
    static let priorities = JobSettings(rawValue: 2)
    /// `retry: .exponential(attempts: 3)` on every job.
    static let retry = JobSettings(rawValue: 4)
}

/// The workloads run through Sequencer. Each timing covers building the workflow, the run,
/// reading the report, and freeing it all: what a caller pays.
enum SequencerWorkloads {
    static let laneNames = ["lane0", "lane1", "lane2", "lane3"]

    /// `count` independent no-op jobs named `j0`, `j1`, ...
    /// - Returns: the number of jobs that succeeded.
    /// - Throws: when the workflow is invalid or the run did not succeed.
    static func flat(count: Int, settings: JobSettings) async throws -> Int {
        var workflow = Workflow()
        let options = Options(settings, workflow: &workflow)
        for job in 0..<count {
            try workflow.add(
                JobID("j\(job)"), lane: options.lane(job), priority: options.priority(job), retry: options.retry
            ) { _ in }
        }
        return try await runToEnd(workflow, expecting: count)
    }

    /// The jobs of `dag`, named `j0`, `j1`, ..., each needing its graph needs by ID.
    /// - Returns: the number of jobs that succeeded.
    /// - Throws: when the workflow is invalid or the run did not succeed.
    static func dag(_ dag: RandomDAG, settings: JobSettings) async throws -> Int {
        var workflow = Workflow()
        let options = Options(settings, workflow: &workflow)
        let ids = (0..<dag.count).map { JobID("j\($0)") }
        for job in 0..<dag.count {
            try workflow.add(
                ids[job], needs: dag.needs(of: job).map { ids[Int($0)] },
                lane: options.lane(job), priority: options.priority(job), retry: options.retry
            ) { _ in }
        }
        return try await runToEnd(workflow, expecting: dag.count)
    }

    private static func runToEnd(_ workflow: Workflow, expecting count: Int) async throws -> Int {
        let report = try await workflow.start().report()
        let succeeded = report.count(.succeeded)
        guard report.status == .succeeded, succeeded == count else {
            throw BenchFailure("run ended \(report.status) with \(succeeded) of \(count) jobs succeeded")
        }
        return succeeded
    }

    /// Each job's lane, priority and retry policy under some ``JobSettings``.
    private struct Options {
        let lanes: [String]
        let priorities: [Priority]
        let retry: RetryPolicy

        init(_ settings: JobSettings, workflow: inout Workflow) {
            lanes = settings.contains(.lanes) ? SequencerWorkloads.laneNames : []
            for lane in lanes { workflow.lane(lane, width: 2) }
            priorities = settings.contains(.priorities) ? Priority.allCases : []
            retry = settings.contains(.retry) ? .exponential(attempts: 3) : .none
        }

        func lane(_ job: Int) -> String? { lanes.isEmpty ? nil : lanes[job % lanes.count] }
        func priority(_ job: Int) -> Priority { priorities.isEmpty ? .utility : priorities[job % priorities.count] }
    }
}
