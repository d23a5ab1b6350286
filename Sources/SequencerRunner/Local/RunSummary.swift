import Foundation
import Sequencer
import SequencerCache
import SequencerWorkflowFile

/// The lines printed when a run ends: the counts, the time, the critical path and what failed.
struct RunSummary {
    let report: RunReport
    let shell: ShellWorkflow
    let interrupted: Bool
    /// What the run's cache did, when it had one.
    var cache: CacheStatistics.Figures?

    func print(to console: Console) {
        let restored = report.outcomes.reduce(0) { $0 + ($1.restored ? 1 : 0) }
        let hits = cache?.hits ?? 0
        var counts = restored > 0 ? ["\(restored) done before"] : []
        if hits > 0 { counts.append("\(hits) from the cache") }
        for status in [JobStatus.upToDate] + JobStatus.allCases.filter({ $0 != .upToDate }) {
            var count = report.count(status)
            if status == .succeeded { count -= restored + hits }
            guard count > 0 else { continue }
            counts.append("\(count) \(Self.name(of: status))")
        }
        let verdict = interrupted ? "interrupted" : report.status.rawValue
        console.line(Self.countsLine(verdict: verdict, jobs: shell.file.jobs.count, duration: report.duration, counts: counts))
        let path = report.criticalPathSteps
        if let first = path.first, let last = path.last {
            // A long chain shows its ends: 100,000 steps made a line of megabytes.
            let steps = path.count <= 12
                ? path.map(Self.describe)
                : path.prefix(5).map(Self.describe) + ["(\(path.count - 10) more)"] + path.suffix(5).map(Self.describe)
            console.line("critical path (\(seconds(last.endedAt - first.startedAt))): " + steps.joined(separator: " -> "))
        }
        if let cache, !cache.isEmpty { console.line(cache.line) }
        let failures = report.outcomes.filter { $0.status == .failed || $0.status == .timedOut }
        if !failures.isEmpty {
            let names = failures.prefix(10).map(\.id.rawValue).joined(separator: ", ")
            console.line("failed: \(names)" + (failures.count > 10 ? ", +\(failures.count - 10) more" : ""))
        }
    }

    /// The summary of a run that started nothing, every job being up to date: the line
    /// ``print(to:)`` prints for such a run (it has no critical path: up-to-date jobs take no time).
    static func printAllUpToDate(jobs: Int, duration: Duration, to console: Console) {
        console.line(countsLine(verdict: RunStatus.succeeded.rawValue, jobs: jobs, duration: duration, counts: ["\(jobs) up to date"]))
    }

    /// `sequencer: succeeded: 51 jobs in 14.2s: 3 up to date, 48 succeeded`
    private static func countsLine(verdict: String, jobs: Int, duration: Duration, counts: [String]) -> String {
        "sequencer: \(verdict): \(jobs) job\(jobs == 1 ? "" : "s") in \(seconds(duration)): " + counts.joined(separator: ", ")
    }

    static func name(of status: JobStatus) -> String {
        switch status {
        case .upToDate: "up to date"
        case .timedOut: "timed out"
        default: status.rawValue
        }
    }

    /// `compile 6.2s`, or `link 0.4s (waited 6.0s for a worker)` for a job that was ready
    /// but waited for a slot that the job before it on the path held.
    static func describe(_ step: CriticalPath.Step) -> String {
        var text = "\(step.job) \(seconds(step.endedAt - step.startedAt))"
        if case .slot(_, let lane) = step.wait {
            text += " (waited \(seconds(step.queued)) for " + (lane.map { "lane '\($0)'" } ?? "a worker") + ")"
        }
        return text
    }
}
