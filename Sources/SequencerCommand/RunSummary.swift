import Sequencer
import SequencerWorkflowFile

/// The lines printed when a run ends: the counts, the time, the critical path and what failed.
struct RunSummary {
    let report: RunReport
    let shell: ShellWorkflow
    let interrupted: Bool

    func print(to console: Console) {
        let restored = report.outcomes.reduce(0) { $0 + ($1.restored ? 1 : 0) }
        var counts = restored > 0 ? ["\(restored) done before"] : []
        for status in [JobStatus.upToDate] + JobStatus.allCases.filter({ $0 != .upToDate }) {
            var count = report.count(status)
            if status == .succeeded { count -= restored }
            guard count > 0 else { continue }
            counts.append("\(count) \(Self.name(of: status))")
        }
        let total = shell.file.jobs.count
        let verdict = interrupted ? "interrupted" : report.status.rawValue
        console.line("sequencer: \(verdict): \(total) job\(total == 1 ? "" : "s") in \(seconds(report.duration)): "
                     + counts.joined(separator: ", "))
        let path = report.criticalPathSteps
        if let first = path.first, let last = path.last {
            console.line("critical path (\(seconds(last.endedAt - first.startedAt))): "
                         + path.map(Self.describe).joined(separator: " -> "))
        }
        let failures = report.outcomes.filter { $0.status == .failed || $0.status == .timedOut }
        if !failures.isEmpty {
            let names = failures.prefix(10).map(\.id.rawValue).joined(separator: ", ")
            console.line("failed: \(names)" + (failures.count > 10 ? ", +\(failures.count - 10) more" : ""))
        }
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
