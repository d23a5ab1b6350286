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
        case .dot: dotGraph()
        case .mermaid: mermaidGraph()
        case .json: GraphDocument(self).json() + "\n"
        }
    }

    /// The lanes that have jobs, in file order, each with its jobs' positions in file order,
    /// and the positions of the jobs in no declared lane.
    func jobsByLane() -> (lanes: [(lane: Lane, jobs: [Int])], unlaned: [Int]) {
        var members = Array(repeating: [Int](), count: lanes.count)
        var unlaned: [Int] = []
        for (position, job) in jobs.enumerated() {
            if let name = job.lane, let lane = lanes.firstIndex(where: { $0.name == name }) {
                members[lane].append(position)
            } else {
                unlaned.append(position)
            }
        }
        let laned = zip(lanes, members).filter { !$0.1.isEmpty }.map { (lane: $0.0, jobs: $0.1) }
        return (laned, unlaned)
    }
}

extension WorkflowFile.Lane {
    /// `lane network (width 2)`, or `lane network (width 2, unordered)`.
    var title: String {
        "lane \(name) (width \(width)\(ordered ? "" : ", unordered"))"
    }
}
