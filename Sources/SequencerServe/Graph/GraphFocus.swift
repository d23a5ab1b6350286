/// Which jobs of a run the graph draws: all of them when they are few; otherwise a job's
/// neighbourhood (what it needs and what needs it, level by level) up to a limit, each
/// node at its edge counting the jobs it leads to that are not drawn.
struct GraphFocus: Equatable {
    /// The job the graph is centred on; nil when it draws every job.
    let focus: Int?
    /// The drawn jobs, by index, ascending.
    let nodes: [Int]
    /// For drawn jobs with undrawn neighbours: how many of their needs and of their
    /// dependents are not drawn.
    let hidden: [Int: (needs: Int, dependents: Int)]

    static func == (a: GraphFocus, b: GraphFocus) -> Bool {
        a.focus == b.focus && a.nodes == b.nodes && a.hidden.mapValues { [$0.needs, $0.dependents] } == b.hidden.mapValues { [$0.needs, $0.dependents] }
    }

    /// - Parameters:
    ///   - needs: Each job's needs, by index.
    ///   - focus: The job to centre on; nil draws every job if there are at most `limit`, and
    ///     else centres on `fallback`.
    static func of(needs: [[Int]], focus: Int?, fallback: Int?, limit: Int) -> GraphFocus {
        var dependents = [[Int]](repeating: [], count: needs.count)
        for (job, list) in needs.enumerated() {
            for need in list { dependents[need].append(job) }
        }
        guard focus != nil || needs.count > limit, let centre = focus ?? fallback, needs.indices.contains(centre) else {
            return GraphFocus(focus: nil, nodes: Array(needs.indices), hidden: [:])
        }
        // Breadth first both ways; a whole level or nothing, so that a level is never cut.
        var shown: Set<Int> = [centre]
        var upward = [centre]
        var downward = [centre]
        while !upward.isEmpty || !downward.isEmpty {
            let nextUp = Set(upward.flatMap { needs[$0] }).subtracting(shown)
            let nextDown = Set(downward.flatMap { dependents[$0] }).subtracting(shown).subtracting(nextUp)
            if shown.count + nextUp.count + nextDown.count > limit {
                // One direction alone may still fit.
                if !nextUp.isEmpty, shown.count + nextUp.count <= limit {
                    shown.formUnion(nextUp)
                    upward = Array(nextUp)
                    downward = []
                    continue
                }
                if !nextDown.isEmpty, shown.count + nextDown.count <= limit {
                    shown.formUnion(nextDown)
                    downward = Array(nextDown)
                    upward = []
                    continue
                }
                break
            }
            shown.formUnion(nextUp)
            shown.formUnion(nextDown)
            upward = Array(nextUp)
            downward = Array(nextDown)
        }
        var hidden: [Int: (needs: Int, dependents: Int)] = [:]
        for job in shown {
            let needsHidden = needs[job].filter { !shown.contains($0) }.count
            let dependentsHidden = dependents[job].filter { !shown.contains($0) }.count
            if needsHidden + dependentsHidden > 0 { hidden[job] = (needsHidden, dependentsHidden) }
        }
        return GraphFocus(focus: centre, nodes: shown.sorted(), hidden: hidden)
    }
}
