import Sequencer
import SequencerWorkflowFile

/// The lines printed when a run ends: the counts, the time, the critical path and what failed.
struct RunSummary {
    let report: RunReport
    let shell: ShellWorkflow
    let interrupted: Bool

    func print(to console: Console) {
        var upToDate = 0, restored = 0
        for outcome in report.outcomes {
            if outcome.restored { restored += 1 }
            if outcome.error?.code == .upToDate { upToDate += 1 }
        }
        var counts = JobStatus.allCases.compactMap { status -> String? in
            var count = report.count(status)
            if status == .succeeded { count -= restored }
            if status == .skipped { count -= upToDate }
            return count == 0 ? nil : "\(count) \(status == .timedOut ? "timed out" : status.rawValue)"
        }
        if upToDate > 0 { counts.insert("\(upToDate) up to date", at: 0) }
        if restored > 0 { counts.insert("\(restored) done before", at: 0) }
        let total = shell.file.jobs.count
        let verdict = interrupted ? "interrupted" : report.status.rawValue
        console.line("sequencer: \(verdict): \(total) job\(total == 1 ? "" : "s") in \(seconds(report.duration)): "
                     + counts.joined(separator: ", "))
        if !report.criticalPath.isEmpty {
            let span = criticalPathDuration()
            console.line("critical path" + (span.map { " (\(seconds($0)))" } ?? "") + ": "
                         + report.criticalPath.map(\.rawValue).joined(separator: " -> "))
        }
        let failures = report.outcomes.filter { $0.status == .failed || $0.status == .timedOut }
        if !failures.isEmpty {
            let names = failures.prefix(10).map(\.id.rawValue).joined(separator: ", ")
            console.line("failed: \(names)" + (failures.count > 10 ? ", +\(failures.count - 10) more" : ""))
        }
    }

    /// From the start of the path's first job to the end of its last.
    private func criticalPathDuration() -> Duration? {
        guard let first = report.criticalPath.first.flatMap({ report.outcome(of: $0)?.startedAt }),
              let last = report.criticalPath.last.flatMap({ report.outcome(of: $0)?.endedAt }) else { return nil }
        return last - first
    }
}
