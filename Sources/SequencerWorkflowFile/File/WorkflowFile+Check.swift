extension WorkflowFile {
    /// Reports jobs and lanes of the same name from different files or template items (a
    /// mapping's own repeats are reported as it is read), and keeps the first of each.
    /// - Parameter laneFiles: the file each lane is declared in.
    static func checkNames(_ file: inout WorkflowFile, laneFiles: [String], reader: inout NodeReader) {
        var jobs: [String: Job] = [:]
        file.jobs.removeAll { job in
            guard let first = jobs[job.name] else {
                jobs[job.name] = job
                return false
            }
            if let origin = job.origin, let firstOrigin = first.origin, origin.template == firstOrigin.template,
               job.location == first.location, job.definedIn == first.definedIn {
                reader.error("template '\(origin.template)' makes two jobs named '\(job.name)', for item '\(firstOrigin.item)' "
                             + "and for item '\(origin.item)'; use a substitution that tells them apart (such as ${item} or ${dir})",
                             at: job.location, in: job.definedIn)
            } else {
                reader.error("duplicate job '\(job.name)'" + (job.origin.map { " (\($0))" } ?? ""),
                             at: job.location,
                             notes: [reader.note("'\(job.name)' first defined here" + (first.origin.map { " (\($0))" } ?? ""),
                                                 at: first.location, in: first.definedIn)],
                             in: job.definedIn)
            }
            return true
        }
        var lanes: [String: Int] = [:]
        var kept: [(lane: Lane, definedIn: String)] = []
        for (lane, definedIn) in zip(file.lanes, laneFiles) {
            guard let first = lanes[lane.name].map({ kept[$0] }) else {
                lanes[lane.name] = kept.count
                kept.append((lane, definedIn))
                continue
            }
            reader.error("duplicate lane '\(lane.name)'", at: lane.location,
                         notes: [reader.note("'\(lane.name)' first defined here", at: first.lane.location, in: first.definedIn)],
                         in: definedIn)
        }
        file.lanes = kept.map(\.lane)
    }

    /// Reports needs and lanes that name nothing, and every dependency cycle. A need with `*`,
    /// `?` or `[` that is not a job's name stands for every job it matches (a template's family,
    /// `compile-*`), in file order; one that matches none is an error, or a warning when it
    /// could name a template with no items (`emptyTemplates`, their names as written).
    static func checkReferences(_ file: inout WorkflowFile, emptyTemplates: [String], reader: inout NodeReader) {
        var index: [String: Int] = [:]
        index.reserveCapacity(file.jobs.count)
        for (position, job) in file.jobs.enumerated() where index[job.name] == nil { index[job.name] = position }
        let laneNames = Set(file.lanes.map(\.name))
        func context(_ job: Job) -> String { job.origin.map { " (\($0))" } ?? "" }

        var families: [String: [String]] = [:]  // the jobs each need pattern matches
        var needs = [[Int]](repeating: [], count: file.jobs.count)
        for position in file.jobs.indices {
            let job = file.jobs[position]
            if let lane = job.lane, !laneNames.contains(lane) {
                reader.error("job '\(job.name)' uses lane '\(lane)', which is not declared under 'lanes'"
                             + didYouMean(lane, among: file.lanes.map(\.name)) + context(job),
                             at: job.laneLocation ?? job.location, in: job.definedIn)
            }
            var resolved: [Need] = []
            for need in job.needs {
                if let target = index[need.name] {
                    needs[position].append(target)
                    resolved.append(need)
                    continue
                }
                guard FilePattern.isGlob(need.name) else {
                    reader.error("job '\(job.name)' needs '\(need.name)', which is not a job"
                                 + didYouMean(need.name, among: file.jobs.lazy.map(\.name)) + context(job),
                                 at: need.location, in: job.definedIn)
                    continue
                }
                let members = families[need.name] ?? FilePattern.matching(need.name, among: file.jobs.map(\.name))
                families[need.name] = members
                let matched = members.filter { $0 != job.name }
                if matched.isEmpty {
                    if let template = emptyTemplates.first(where: { family($0, matches: need.name) }) {
                        file.warnings.append(Diagnostic(
                            file: job.definedIn, location: need.location, severity: .warning,
                            message: "job '\(job.name)' needs '\(need.name)', which matches no job: "
                                + "template '\(template)' makes none" + context(job)))
                    } else {
                        reader.error("job '\(job.name)' needs '\(need.name)', which matches no job" + context(job),
                                     at: need.location, in: job.definedIn)
                    }
                }
                for name in matched {
                    if let target = index[name] { needs[position].append(target) }
                    resolved.append(Need(name: name, location: need.location))
                }
            }
            file.jobs[position].needs = resolved
        }
        for cycle in cycles(needs: needs) {
            let names = cycle.map { file.jobs[$0].name }
            let edges = zip(cycle, cycle.dropFirst() + [cycle[0]]).map { from, to in
                (from: from, to: to, location: file.jobs[from].needs.first { $0.name == file.jobs[to].name }?.location
                    ?? file.jobs[from].location)
            }
            let first = file.jobs[edges[0].from]
            reader.error(
                "dependency cycle: " + (names + [names[0]]).joined(separator: " -> "),
                at: edges[0].location,
                notes: edges.map {
                    reader.note("'\(file.jobs[$0.from].name)' needs '\(file.jobs[$0.to].name)' here",
                                at: $0.location, in: file.jobs[$0.from].definedIn)
                },
                in: first.definedIn)
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
