extension WorkflowFile {
    /// Reports needs and lanes that name nothing, and every dependency cycle.
    static func checkReferences(_ file: WorkflowFile, reader: inout NodeReader) {
        var index: [String: Int] = [:]
        index.reserveCapacity(file.jobs.count)
        for (position, job) in file.jobs.enumerated() where index[job.name] == nil { index[job.name] = position }
        let laneNames = Set(file.lanes.map(\.name))

        var needs = [[Int]](repeating: [], count: file.jobs.count)
        for (position, job) in file.jobs.enumerated() {
            if let lane = job.lane, !laneNames.contains(lane) {
                reader.error("job '\(job.name)' uses lane '\(lane)', which is not declared under 'lanes'"
                             + didYouMean(lane, among: file.lanes.map(\.name)),
                             at: job.laneLocation ?? job.location)
            }
            for need in job.needs {
                guard let target = index[need.name] else {
                    reader.error("job '\(job.name)' needs '\(need.name)', which is not a job"
                                 + didYouMean(need.name, among: file.jobs.lazy.map(\.name)),
                                 at: need.location)
                    continue
                }
                needs[position].append(target)
            }
        }
        for cycle in cycles(needs: needs) {
            let names = cycle.map { file.jobs[$0].name }
            let edges = zip(cycle, cycle.dropFirst() + [cycle[0]]).map { from, to in
                (from: from, to: to, location: file.jobs[from].needs.first { $0.name == file.jobs[to].name }?.location
                    ?? file.jobs[from].location)
            }
            reader.error(
                "dependency cycle: " + (names + [names[0]]).joined(separator: " -> "),
                at: edges[0].location,
                notes: edges.map { reader.note("'\(file.jobs[$0.from].name)' needs '\(file.jobs[$0.to].name)' here", at: $0.location) })
        }
    }

    /// One cycle per strongly connected component that has one (Tarjan's algorithm, without
    /// recursion). Each cycle starts at its earliest job in file order and follows needs in
    /// file order, so the output is deterministic.
    /// - Complexity: O(jobs + needs).
    static func cycles(needs: [[Int]]) -> [[Int]] {
        let count = needs.count
        var order = [Int](repeating: -1, count: count), low = [Int](repeating: 0, count: count)
        var onStack = [Bool](repeating: false, count: count)
        var stack: [Int] = [], components: [[Int]] = []
        var counter = 0
        for root in 0..<count where order[root] < 0 {
            var frames: [(job: Int, next: Int)] = [(root, 0)]
            order[root] = counter; low[root] = counter; counter += 1
            stack.append(root); onStack[root] = true
            while let frame = frames.last {
                let job = frame.job
                if frame.next < needs[job].count {
                    frames[frames.count - 1].next += 1
                    let target = needs[job][frame.next]
                    if order[target] < 0 {
                        order[target] = counter; low[target] = counter; counter += 1
                        stack.append(target); onStack[target] = true
                        frames.append((target, 0))
                    } else if onStack[target] {
                        low[job] = min(low[job], order[target])
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last { low[parent.job] = min(low[parent.job], low[job]) }
                guard low[job] == order[job] else { continue }
                var component: [Int] = []
                while let member = stack.popLast() {
                    onStack[member] = false
                    component.append(member)
                    if member == job { break }
                }
                if component.count > 1 || needs[job].contains(job) { components.append(component) }
            }
        }
        return components
            .map { cycle(in: Set($0), needs: needs) }
            .sorted { $0[0] < $1[0] }
    }

    /// A shortest cycle through the component's earliest job, by breadth-first search.
    private static func cycle(in component: Set<Int>, needs: [[Int]]) -> [Int] {
        guard let start = component.min() else { return [] }
        var previous: [Int: Int] = [:]
        var queue = [start], head = 0
        while head < queue.count {
            let job = queue[head]
            head += 1
            for target in needs[job] where component.contains(target) {
                if target == start {
                    var path = [job]
                    while let step = previous[path[path.count - 1]] { path.append(step) }
                    return path.reversed()
                }
                if previous[target] == nil {
                    previous[target] = job
                    queue.append(target)
                }
            }
        }
        return [start]
    }
}
