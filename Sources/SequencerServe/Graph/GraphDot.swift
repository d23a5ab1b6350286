import SequencerOutput

/// The dot text of a run's focused graph: nodes with the ids and classes the page's script
/// and style use (`job-N`, `job st-STATUS`, `crit`), lanes as clusters, links to each job's
/// page and, for a node with undrawn neighbours, a "+N" node that refocuses on it.
struct GraphDot {
    let view: RunView
    let focus: GraphFocus

    func text() -> String {
        let critical = Set(view.critical)
        let criticalEdges = Set(zip(view.critical, view.critical.dropFirst()).map { [$0, $1] })
        var lines = [
            "digraph run {",
            "  rankdir=LR; bgcolor=\"transparent\"; nodesep=0.25; ranksep=0.45;",
            "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", color=\"#5b6475\", fontname=\"Helvetica\", fontsize=11, height=0.3];",
            "  edge [color=\"#8a94a6\", arrowsize=0.6];",
        ]
        let shown = Set(focus.nodes)
        var byLane: [Int?: [Int]] = [:]
        for job in focus.nodes { byLane[view.jobs[job].lane, default: []].append(job) }
        for (lane, jobs) in byLane.sorted(by: { ($0.key ?? -1) < ($1.key ?? -1) }) {
            let indent: String
            if let lane {
                let width = view.lanes[lane].width
                lines.append("  subgraph cluster_\(lane) {")
                lines.append("    label=\(quote("lane \(view.lanes[lane].name) (\(width) at a time)")); style=\"rounded,dashed\"; color=\"#9aa3b5\"; fontname=\"Helvetica\"; fontsize=10;")
                indent = "    "
            } else {
                indent = "  "
            }
            for job in jobs {
                let node = view.jobs[job]
                var classes = "job st-\(node.status)"
                if critical.contains(job) { classes += " crit" }
                if job == focus.focus { classes += " focus" }
                lines.append(indent + "j\(job) [id=\"job-\(job)\", class=\(quote(classes)), label=\(quote(node.name)), tooltip=\(quote("\(node.name): \(HTML.words(node.status))")), URL=\(quote("/runs/\(view.run.id)/job?name=\(HTML.query(node.name))"))];")
            }
            if lane != nil { lines.append("  }") }
        }
        for job in focus.nodes {
            for need in view.jobs[job].needs where shown.contains(need) {
                let crit = criticalEdges.contains([need, job])
                lines.append("  j\(need) -> j\(job) [id=\"edge-\(need)-\(job)\"\(crit ? ", class=\"crit\"" : "")];")
            }
        }
        for (job, counts) in focus.hidden.sorted(by: { $0.key < $1.key }) {
            let refocus = quote("/runs/\(view.run.id)?focus=\(HTML.query(view.jobs[job].name))")
            if counts.needs > 0 {
                lines.append("  m\(job)n [id=\"more-\(job)-needs\", class=\"more\", shape=plaintext, style=\"\", label=\(quote("+\(counts.needs) more")), URL=\(refocus)];")
                lines.append("  m\(job)n -> j\(job) [style=dashed];")
            }
            if counts.dependents > 0 {
                lines.append("  m\(job)d [id=\"more-\(job)-dependents\", class=\"more\", shape=plaintext, style=\"\", label=\(quote("+\(counts.dependents) more")), URL=\(refocus)];")
                lines.append("  j\(job) -> m\(job)d [style=dashed];")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    func quote(_ text: String) -> String { dotQuoted(text) }
}
