/// A job graph drawn as Graphviz dot or a Mermaid flowchart: nodes in clusters (lanes) and
/// edges from each needed job to the job that needs it. Workflow files and run reports are
/// both drawn with it, so the two look alike.
package struct GraphDrawing: Sendable {
    /// A job.
    package struct Node: Sendable {
        package var name: String
        /// Shown when pointing at the node (dot only): a command, say.
        package var tooltip: String?
        /// The names of the jobs it needs.
        package var needs: [String]
        /// How the job ended, for a run; nodes with a status are coloured by it.
        package var status: String?

        package init(name: String, tooltip: String?, needs: [String], status: String? = nil) {
            self.name = name
            self.tooltip = tooltip
            self.needs = needs
            self.status = status
        }
    }

    /// A lane with jobs: a dot cluster or a Mermaid subgraph.
    package struct Cluster: Sendable {
        package var title: String
        /// Positions in ``nodes``.
        package var members: [Int]

        package init(title: String, members: [Int]) {
            self.title = title
            self.members = members
        }
    }

    package var nodes: [Node]
    package var clusters: [Cluster]
    /// The positions of the nodes in no cluster.
    package var unclustered: [Int]

    package init(nodes: [Node], clusters: [Cluster], unclustered: [Int]) {
        self.nodes = nodes
        self.clusters = clusters
        self.unclustered = unclustered
    }

    /// Fill colours by status, for both notations.
    private static let colours = [
        "succeeded": "#b7e4b0", "upToDate": "#d9ead3", "failed": "#f4a6a6", "timedOut": "#f6c48f",
        "cancelled": "#d0d0d0", "skipped": "#eeeeee",
    ]

    /// The graph in Graphviz's dot language, ending with a newline.
    package func dot() -> String {
        var lines = ["digraph workflow {", "  rankdir=LR;", "  node [shape=box];"]
        func node(_ position: Int, indent: String) -> String {
            let node = nodes[position]
            var attributes: [String] = []
            if let tooltip = node.tooltip { attributes.append("tooltip=\(dotQuoted(tooltip))") }
            if let status = node.status {
                attributes.append("xlabel=\(dotQuoted(status))")
                attributes.append("style=filled")
                attributes.append("fillcolor=\(dotQuoted(Self.colours[status] ?? "#ffffff"))")
            }
            let list = attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]"
            return "\(indent)\(dotQuoted(node.name))\(list);"
        }
        for (index, cluster) in clusters.enumerated() {
            lines.append("  subgraph \(dotQuoted("cluster_\(index)")) {")
            lines.append("    label=\(dotQuoted(cluster.title));")
            lines += cluster.members.map { node($0, indent: "    ") }
            lines.append("  }")
        }
        lines += unclustered.map { node($0, indent: "  ") }
        for node in nodes {
            for need in node.needs {
                lines.append("  \(dotQuoted(need)) -> \(dotQuoted(node.name));")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The graph as a Mermaid flowchart, ending with a newline. Nodes are `j0`, `j1`, ... in
    /// order, labelled with the job's name; clusters are subgraphs `lane0`, `lane1`, ...; nodes
    /// with a status get the class of that name.
    package func mermaid() -> String {
        var lines = ["flowchart LR"]
        func node(_ position: Int, indent: String) -> String {
            "\(indent)j\(position)[\(mermaidQuoted(nodes[position].name))]"
        }
        for (index, cluster) in clusters.enumerated() {
            lines.append("  subgraph lane\(index) [\(mermaidQuoted(cluster.title))]")
            lines += cluster.members.map { node($0, indent: "    ") }
            lines.append("  end")
        }
        lines += unclustered.map { node($0, indent: "  ") }
        var positions: [String: Int] = [:]
        for (position, node) in nodes.enumerated() where positions[node.name] == nil {
            positions[node.name] = position
        }
        for (position, node) in nodes.enumerated() {
            for need in node.needs {
                // A need of no node (a file that did not pass its checks) has no node.
                guard let needed = positions[need] else { continue }
                lines.append("  j\(needed) --> j\(position)")
            }
        }
        var byStatus: [String: [Int]] = [:]
        for (position, node) in nodes.enumerated() {
            if let status = node.status { byStatus[status, default: []].append(position) }
        }
        for (status, members) in byStatus.sorted(by: { $0.key < $1.key }) {
            let name = status.unicodeScalars.allSatisfy { $0.properties.isAlphabetic } ? status : "other"
            lines.append("  classDef \(name) fill:\(Self.colours[status] ?? "#ffffff")")
            lines.append("  class \(members.map { "j\($0)" }.joined(separator: ",")) \(name)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A dot string: in double quotes, with quotes and backslashes escaped, line breaks as `\n`,
/// and `&` as `&amp;`: Graphviz reads character references (`&lt;`, `&#60;`) in every string
/// (labels, tooltips, URLs, cluster names) and writes them into its SVG as they are, so a job
/// named `&lt;b&gt;` would show as `<b>`; with its `&` escaped it shows as it is named.
package func dotQuoted(_ text: String) -> String {
    var quoted = "\""
    for character in text.unicodeScalars {
        switch character {
        case "&": quoted += "&amp;"
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

/// A Mermaid label: in double quotes, with the characters Mermaid would read as syntax or
/// markup written as entity codes (`#34;` for a quote), and line breaks as spaces.
package func mermaidQuoted(_ text: String) -> String {
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
