/// The order a run adds a file's jobs in, so that when more jobs are ready than workers, the
/// one with the longest remaining path starts first (as ninja 1.12 orders by its log).
///
/// A job's remaining path is its own duration plus the longest remaining path of the jobs that
/// need it: how long the run lasts from its start at best. Durations are those of each job's
/// last successful attempt (the journal's); a job with none counts as the average of the
/// recorded ones, and with none recorded at all every job counts as 0, so the jobs keep the
/// file's order.
///
/// ```swift
/// // a: 1s, b needs a: 2s, c: 0.5s
/// StartOrder.remainingPaths(of: file.jobs, durations: ["a": .seconds(1), "b": .seconds(2), "c": .milliseconds(500)])
/// // [3s, 2s, 0.5s]
/// ```
///
/// The scheduler starts ready jobs of a priority first in, first out, in the order they were
/// added, so adding the jobs in this order is enough: the first ready jobs queue longest
/// first, and so do the jobs one ending releases together.
public enum StartOrder {
    /// Each job's remaining path, in the order of `jobs`.
    /// - Parameters:
    ///   - jobs: the file's jobs (needs resolved, no cycle).
    ///   - durations: how long each job took when it last succeeded, by job name.
    /// - Complexity: O(jobs + needs).
    public static func remainingPaths(of jobs: [WorkflowFile.Job], durations: [String: Duration]) -> [Duration] {
        let order = topological(jobs)
        var index: [String: Int] = [:]
        for (position, job) in jobs.enumerated() where index[job.name] == nil { index[job.name] = position }
        let known = jobs.compactMap { durations[$0.name] }
        let estimate = known.isEmpty ? Duration.zero : known.reduce(.zero, +) / known.count
        var paths = [Duration](repeating: .zero, count: jobs.count)
        var longestAfter = [Duration](repeating: .zero, count: jobs.count)
        // Every job comes after the jobs it needs: backwards, a job's dependents are done first.
        for job in order.reversed() {
            paths[job] = (durations[jobs[job].name] ?? estimate) + longestAfter[job]
            for need in jobs[job].needs {
                guard let needed = index[need.name] else { continue }
                longestAfter[needed] = max(longestAfter[needed], paths[job])
            }
        }
        return paths
    }

    /// The jobs in the order to add them: longest remaining path first, ties in the order of
    /// ``ShellWorkflow/needsFirst(_:)`` (file order, needs first). Two rules hold over the
    /// weights: a job never comes after a job that needs it, and the jobs of a lane keep their
    /// order (the lane's order is the file's); so a job is moved ahead with the latest of them.
    /// - Complexity: O(jobs × log jobs + needs).
    public static func ordered(_ jobs: [WorkflowFile.Job], durations: [String: Duration]) -> [WorkflowFile.Job] {
        let placed = ShellWorkflow.needsFirst(jobs)
        guard !durations.isEmpty else { return placed }
        let paths = remainingPaths(of: placed, durations: durations)
        var index: [String: Int] = [:]
        for (position, job) in placed.enumerated() where index[job.name] == nil { index[job.name] = position }
        var keys = paths
        var laneNext: [String: Duration] = [:]
        // Backwards: the jobs that need a job, and the later jobs of its lane, have their keys.
        for position in placed.indices.reversed() {
            let job = placed[position]
            if let lane = job.lane {
                keys[position] = max(keys[position], laneNext[lane] ?? .zero)
                laneNext[lane] = keys[position]
            }
            for need in job.needs {
                guard let needed = index[need.name], needed < position else { continue }
                keys[needed] = max(keys[needed], keys[position])
            }
        }
        return placed.indices.sorted { keys[$0] != keys[$1] ? keys[$0] > keys[$1] : $0 < $1 }.map { placed[$0] }
    }

    /// The positions of `jobs`, each after the jobs it needs.
    private static func topological(_ jobs: [WorkflowFile.Job]) -> [Int] {
        var index: [String: Int] = [:]
        for (position, job) in jobs.enumerated() where index[job.name] == nil { index[job.name] = position }
        return ShellWorkflow.needsFirst(jobs).compactMap { index[$0.name] }
    }
}
