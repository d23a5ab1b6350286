import SequencerOutput

/// A way to print a workflow file's job graph.
///
/// ```swift
/// let file = try WorkflowFile.load(path: "sequencer.yml")
/// print(file.graph(.mermaid))
/// ```
public enum GraphFormat: String, CaseIterable, Sendable {
    /// Graphviz: `dot -Tsvg` draws it. Lanes are clusters; commands are tooltips.
    case dot
    /// A Mermaid flowchart, for Markdown that renders Mermaid. Lanes are subgraphs.
    case mermaid
    /// Every job with its options and every lane, as JSON with sorted keys.
    case json
}

extension WorkflowFile {
    /// The job graph: edges go from a needed job to the job that needs it (the order jobs run
    /// in). Jobs and lanes appear in file order, so the same file always prints the same text.
    ///
    /// ```swift
    /// print(file.graph(.dot))
    /// // digraph workflow {
    /// //   rankdir=LR;
    /// //   ...
    /// //   "splash" -> "fetch-config";
    /// // }
    /// ```
    ///
    /// - Parameter format: the notation to print.
    /// - Returns: the graph, ending with a newline.
    public func graph(_ format: GraphFormat) -> String {
        switch format {
        case .dot: drawing().dot()
        case .mermaid: drawing().mermaid()
        case .json: GraphDocument(self).json() + "\n"
        }
    }

    /// The graph to draw: the jobs in file order, each with its command as its tooltip; the
    /// lanes that have jobs, in file order, as clusters; the jobs in no declared lane outside.
    func drawing() -> GraphDrawing {
        var members = Array(repeating: [Int](), count: lanes.count)
        var unlaned: [Int] = []
        for (position, job) in jobs.enumerated() {
            if let name = job.lane, let lane = lanes.firstIndex(where: { $0.name == name }) {
                members[lane].append(position)
            } else {
                unlaned.append(position)
            }
        }
        let clusters = zip(lanes, members).filter { !$0.1.isEmpty }.map { GraphDrawing.Cluster(title: $0.0.title, members: $0.1) }
        let nodes = jobs.map { GraphDrawing.Node(name: $0.name, tooltip: $0.run, needs: $0.needs.map(\.name)) }
        return GraphDrawing(nodes: nodes, clusters: clusters, unclustered: unlaned)
    }
}

extension WorkflowFile.Lane {
    /// `lane network (width 2)`, or `lane network (width 2, unordered)`.
    var title: String {
        "lane \(name) (width \(width)\(ordered ? "" : ", unordered"))"
    }
}
