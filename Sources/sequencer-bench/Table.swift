import Foundation

extension Summary {
    /// The results as a plain-text table, followed by the graph check and the headline ratios.
    func table() -> String {
        var lines: [String] = []
        lines.append("Sequencer benchmark: \(cores) cores, \(format(memoryGB, 1)) GB RAM, maxConcurrency = cores (default)")
        if !loadAverage.isEmpty {
            lines.append("Load average (1 min) at start and end: \(loadAverage.map { format($0, 2) }.joined(separator: ", ")) (other work on the machine skews times)")
        }
        lines.append("Each measurement runs in a fresh process; time = best of `runs`; peak = that process's VmHWM after its first run.")
        lines.append("MiB = 2^20 bytes; +MiB = peak minus resident memory just before the first run; B/job = +MiB per job.")
        lines.append("Sequencer times include building the workflow (job names, needs by JobID) and reading the report.")
        lines.append("sequencer-build is that building and compiling alone (Workflow.add, then validate()): the run costs the rest.")
        lines.append("")
        lines.append("Graph check (dag; expect ~1.5 edges per job, ~25% of jobs needing nothing):")
        for graph in graphs { lines.append("  " + graph.summary) }

        let sections: [(title: String, rows: [Row])] = [
            ("flat: N independent no-op jobs (time× and RSS× relative to withDiscardingTaskGroup)",
             rows.filter { $0.workload == .flat && !Implementation.optionVariants.contains($0.implementation) }),
            ("dag: N no-op jobs, each needing up to 3 earlier ones (× relative to topo-floor)",
             rows.filter { $0.workload == .dag && !Implementation.optionVariants.contains($0.implementation) }),
            ("options overhead, set on every job: lanes (4 × width 2), priorities (round-robin), retry (never used), timeout 60 s (never reached),\n"
                + "coalescing keys (all distinct / one for all), children (N/100 parents × 100); time× = median of same-round ratios to plain sequencer",
             rows.filter { Implementation.optionVariants.contains($0.implementation) }),
        ]
        let header = [pad("workload", 9), pad("N", 8, right: true), "  ", pad("implementation", 24), pad("runs", 4, right: true),
                      pad("ns/job", 10, right: true), pad("peak MiB", 10, right: true), pad("+MiB", 9, right: true),
                      pad("B/job", 8, right: true), pad("time×", 8, right: true), pad("RSS×", 7, right: true)].joined()
        for section in sections where !section.rows.isEmpty {
            lines.append("")
            lines.append(section.title)
            lines.append(header)
            for row in section.rows { lines.append(line(row)) }
        }

        lines.append("")
        lines.append("Ratios and targets (value ≤ target passes):")
        for ratio in ratios {
            let size = ratio.size.map { "N=\($0)" } ?? ""
            let value = ratio.value.map { format($0, 3) } ?? "-"
            let target = ratio.atMost.map { "target ≤ \(format($0, 2))" } ?? ""
            lines.append("  " + [pad(ratio.name, 70), pad(size, 10), pad(value, 9, right: true), "  ", pad(target, 16), ratio.verdict].joined())
        }
        return lines.joined(separator: "\n")
    }

    private func line(_ row: Row) -> String {
        let start = [pad(row.workload.rawValue, 9), pad(String(row.size), 8, right: true), "  ", pad(row.implementation.rawValue, 24)].joined()
        guard row.status == .ok else { return start + "  " + (row.note ?? row.status.rawValue) }
        return start + [
            pad(row.repeats.map(String.init) ?? "", 4, right: true),
            pad(row.nanosecondsPerJob.map { format($0, 1) } ?? "-", 10, right: true),
            pad(row.peakMB.map { format($0, 1) } ?? "-", 10, right: true),
            pad(row.addedMB.map { format($0, 1) } ?? "-", 9, right: true),
            pad(row.bytesPerJob.map { format($0, 0) } ?? "-", 8, right: true),
            pad(row.timeRatio.map { format($0, 2) } ?? "-", 8, right: true),
            pad(row.memoryRatio.map { format($0, 2) } ?? "-", 7, right: true),
        ].joined()
    }

    private func format(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }

    private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }
}
