/// The graph a run page asks for: the focus, its dot text, and the JSON the page draws from.
struct GraphView {
    /// The most jobs drawn at once: beyond it, a job's neighbourhood.
    static let limit = 120
    /// The most jobs "whole graph" draws.
    static let wholeLimit = 1_500

    let view: RunView
    let focus: GraphFocus
    let note: String?

    init(view: RunView, focus name: String?, whole: Bool) {
        self.view = view
        let needs = view.jobs.map(\.needs)
        let requested = name.flatMap(view.position(of:))
        // Where a large run's graph opens: its first failure, else the end of its critical path.
        let fallback = view.jobs.firstIndex { $0.status == "failed" || $0.status == "timedOut" } ?? view.critical.last ?? (view.jobs.isEmpty ? nil : view.jobs.count - 1)
        if whole, view.jobs.count <= Self.wholeLimit {
            focus = GraphFocus.of(needs: needs, focus: nil, fallback: nil, limit: .max)
            note = nil
        } else {
            focus = GraphFocus.of(needs: needs, focus: requested, fallback: fallback, limit: Self.limit)
            var notes: [String] = []
            if let name, requested == nil { notes.append("There is no job '\(name)' in this run.") }
            if whole { notes.append("The whole graph has \(view.jobs.count) jobs, more than the \(Self.wholeLimit) drawn at once.") }
            if let centre = focus.focus {
                notes.append("\(focus.nodes.count) of \(view.jobs.count) jobs: the neighbourhood of '\(view.jobs[centre].name)'. Choose a job to focus on, or follow a “+N more”.")
            }
            note = notes.isEmpty ? nil : notes.joined(separator: " ")
        }
    }

    func dot() -> String { GraphDot(view: view, focus: focus).text() }

    private struct Document: Encodable {
        var focus: Int?
        var nodes: [Int]
        /// By index (as text): [hidden needs, hidden dependents].
        var hidden: [String: [Int]]
        var note: String?
        var svg: String?
        /// Why there is no SVG.
        var problem: String?
    }

    func document(svg: String?, problem: String?) -> String {
        RunDocument.json(Document(
            focus: focus.focus, nodes: focus.nodes,
            hidden: Dictionary(uniqueKeysWithValues: focus.hidden.map { (String($0.key), [$0.value.needs, $0.value.dependents]) }),
            note: note, svg: svg, problem: problem))
    }
}
