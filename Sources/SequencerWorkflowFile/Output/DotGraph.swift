extension WorkflowFile {
    /// The graph in Graphviz's dot language; see ``graph(_:)``.
    func dotGraph() -> String {
        var lines = ["digraph workflow {", "  rankdir=LR;", "  node [shape=box];"]
        func node(_ job: Job, indent: String) -> String {
            "\(indent)\(dotQuoted(job.name)) [tooltip=\(dotQuoted(job.run))];"
        }
        let grouped = jobsByLane()
        for (index, group) in grouped.lanes.enumerated() {
            lines.append("  subgraph \(dotQuoted("cluster_\(index)")) {")
            lines.append("    label=\(dotQuoted(group.lane.title));")
            lines += group.jobs.map { node(jobs[$0], indent: "    ") }
            lines.append("  }")
        }
        lines += grouped.unlaned.map { node(jobs[$0], indent: "  ") }
        for job in jobs {
            for need in job.needs {
                lines.append("  \(dotQuoted(need.name)) -> \(dotQuoted(job.name));")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A dot string: in double quotes, with quotes and backslashes escaped and line breaks as `\n`.
func dotQuoted(_ text: String) -> String {
    var quoted = "\""
    for character in text.unicodeScalars {
        switch character {
        case "\"": quoted += "\\\""
        case "\\": quoted += "\\\\"
        case "\n": quoted += "\\n"
        case "\r": quoted += "\\r"
        case "\t": quoted += " "
        default: quoted.unicodeScalars.append(character)
        }
    }
    return quoted + "\""
}
