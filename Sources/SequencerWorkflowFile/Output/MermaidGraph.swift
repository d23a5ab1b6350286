extension WorkflowFile {
    /// The graph as a Mermaid flowchart; see ``graph(_:)``. Nodes are `j0`, `j1`, ... in file
    /// order, labelled with the job's name; lanes are subgraphs `lane0`, `lane1`, ...
    func mermaidGraph() -> String {
        var lines = ["flowchart LR"]
        func node(_ position: Int, indent: String) -> String {
            "\(indent)j\(position)[\(mermaidQuoted(jobs[position].name))]"
        }
        let grouped = jobsByLane()
        for (index, group) in grouped.lanes.enumerated() {
            lines.append("  subgraph lane\(index) [\(mermaidQuoted(group.lane.title))]")
            lines += group.jobs.map { node($0, indent: "    ") }
            lines.append("  end")
        }
        lines += grouped.unlaned.map { node($0, indent: "  ") }
        var positions: [String: Int] = [:]
        for (position, job) in jobs.enumerated() where positions[job.name] == nil {
            positions[job.name] = position
        }
        for (position, job) in jobs.enumerated() {
            for need in job.needs {
                // A need of no job in the file (the file did not pass its checks) has no node.
                guard let needed = positions[need.name] else { continue }
                lines.append("  j\(needed) --> j\(position)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A Mermaid label: in double quotes, with the characters Mermaid would read as syntax or
/// markup written as entity codes (`#34;` for a quote), and line breaks as spaces.
func mermaidQuoted(_ text: String) -> String {
    var quoted = "\""
    for character in text.unicodeScalars {
        switch character {
        case "\"", "#", "<", ">", "&", "`": quoted += "#\(character.value);"
        case "\n", "\r", "\t": quoted += " "
        default: quoted.unicodeScalars.append(character)
        }
    }
    return quoted + "\""
}
