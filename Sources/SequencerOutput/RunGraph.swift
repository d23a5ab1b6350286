public import Sequencer

/// The job graph of a run in this process, with each job's status, as Graphviz dot or a
/// Mermaid flowchart: no workflow file or journal needed.
///
/// ```swift
/// let report = await run.report()
/// print(RunGraph(report: report).mermaid())
/// // flowchart LR
/// //   subgraph lane0 ["lane net"]
/// //   ...
/// //   j0 --> j1
/// //   classDef succeeded fill:#b7e4b0
/// //   class j0,j1 succeeded
/// ```
///
/// Jobs appear in the order they were added (children after their parents' workflow), each
/// coloured by its status; lanes are clusters, in the order their first job was added; edges go
/// from a needed job to the job that needs it.
public struct RunGraph: Sendable {
    let drawing: GraphDrawing

    /// The graph of the run that `report` describes.
    ///
    /// - Parameter report: The run's report.
    /// - Complexity: O(jobs + needs).
    public init(report: RunReport) {
        var nodes: [GraphDrawing.Node] = []
        var clusters: [GraphDrawing.Cluster] = []
        var clusterOfLane: [String: Int] = [:]
        var unclustered: [Int] = []
        let outcomes = report.outcomes
        for (position, outcome) in outcomes.enumerated() {
            let needs = report.needs(ofJobAt: position).map { outcomes[$0].id.rawValue }
            nodes.append(GraphDrawing.Node(
                name: outcome.id.rawValue, tooltip: outcome.status.rawValue, needs: needs, status: outcome.status.rawValue))
            if let lane = report.lane(ofJobAt: position) {
                let cluster = clusterOfLane[lane] ?? clusters.count
                if cluster == clusters.count {
                    clusterOfLane[lane] = cluster
                    clusters.append(GraphDrawing.Cluster(title: "lane \(lane)", members: []))
                }
                clusters[cluster].members.append(position)
            } else {
                unclustered.append(position)
            }
        }
        drawing = GraphDrawing(nodes: nodes, clusters: clusters, unclustered: unclustered)
    }

    /// The graph in Graphviz's dot language (`dot -Tsvg` draws it): a job's status is its
    /// outside label and fill colour.
    ///
    /// - Returns: The graph, ending with a newline.
    public func dot() -> String { drawing.dot() }

    /// The graph as a Mermaid flowchart: nodes `j0`, `j1`, ... in the order of the report's
    /// outcomes, each in the class named after its status.
    ///
    /// - Returns: The graph, ending with a newline.
    public func mermaid() -> String { drawing.mermaid() }
}
