/// The need graph of a workflow in compressed form, with the checks run before a run starts.
struct Graph {
    let needStart: [Int32]
    let needs: [Int32]
    let dependentStart: [Int32]
    let dependents: [Int32]

    var count: Int { needStart.count - 1 }

    /// Whether every job needs only jobs added before it, as most workflows are built: then the
    /// order the jobs were added in is already one where each comes after all it needs, and
    /// there is no cycle. A sequential pass, without the sort's scattered counts.
    /// - Complexity: O(jobs + needs).
    var needsComeFirst: Bool {
        for job in 0..<count {
            for edge in Int(needStart[job])..<Int(needStart[job + 1]) where Int(needs[edge]) >= job { return false }
        }
        return true
    }

    /// The jobs ordered so that every job comes after all it needs (Kahn's algorithm).
    /// - Throws: ``WorkflowError`` `.cycle` naming every job on one cycle, in order.
    /// - Complexity: O(jobs + needs).
    func topologicalOrder(ids: [JobID]) throws -> [Int32] {
        var remaining = [Int32](repeating: 0, count: count)
        for job in 0..<count { remaining[job] = needStart[job + 1] - needStart[job] }
        var order = [Int32]()
        order.reserveCapacity(count)
        for job in 0..<count where remaining[job] == 0 { order.append(Int32(job)) }
        var head = 0
        while head < order.count {
            let job = Int(order[head])
            head += 1
            for edge in Int(dependentStart[job])..<Int(dependentStart[job + 1]) {
                let dependent = Int(dependents[edge])
                remaining[dependent] -= 1
                if remaining[dependent] == 0 { order.append(Int32(dependent)) }
            }
        }
        guard order.count < count else { return order }

        // Every job left over still needs another job left over: following those needs must
        // come back to a job already seen.
        guard let start = remaining.firstIndex(where: { $0 > 0 }) else { return order }
        let cycle = findCycle(from: Int32(start)) { job in
            let edges = Int(needStart[Int(job)])..<Int(needStart[Int(job) + 1])
            return edges.lazy.map { needs[$0] }.first { remaining[Int($0)] > 0 } ?? job
        }
        let names = cycle.map { ids[Int($0)] }
        throw WorkflowError(
            code: .cycle,
            message: "dependency cycle: " + names.map(\.description).joined(separator: " -> "),
            jobs: names)
    }

    /// Checks that no ordered lane waits forever. In an ordered lane a job cannot start before
    /// the job added to the lane just before it has started, so a job that needs (directly or
    /// through other jobs, possibly through other lanes) a job added later to its lane would
    /// wait forever. Those waits are extra edges; a cycle through them is a deadlock.
    /// - Returns: nil when no ordered lane has two jobs; otherwise an order of the jobs where each
    ///   comes after its needs and its lane predecessor, and each job's lane predecessor (or -1).
    /// - Throws: ``WorkflowError`` `.laneOrderDeadlock`, naming each step of the wait.
    /// - Complexity: O(jobs + needs).
    func checkLaneOrder(
        lanes: [Plan.Lane], laneOfJob: (Int) -> Int32, ids: [JobID]
    ) throws -> (order: [Int32], previous: [Int32])? {
        guard lanes.contains(where: { $0.ordered && $0.members.count > 1 }) else { return nil }
        var previous = [Int32](repeating: -1, count: count)
        var next = [Int32](repeating: -1, count: count)
        for lane in lanes where lane.ordered {
            for (earlier, later) in zip(lane.members, lane.members.dropFirst()) {
                previous[Int(later)] = earlier
                next[Int(earlier)] = later
            }
        }
        var remaining = [Int32](repeating: 0, count: count)
        var ready = [Int32]()
        for job in 0..<count {
            remaining[job] = needStart[job + 1] - needStart[job] + (previous[job] >= 0 ? 1 : 0)
            if remaining[job] == 0 { ready.append(Int32(job)) }
        }
        var order = [Int32]()
        order.reserveCapacity(count)
        while let job = ready.popLast().map(Int.init) {
            order.append(Int32(job))
            for edge in Int(dependentStart[job])..<Int(dependentStart[job + 1]) {
                let dependent = Int(dependents[edge])
                remaining[dependent] -= 1
                if remaining[dependent] == 0 { ready.append(Int32(dependent)) }
            }
            if next[job] >= 0 {
                let later = Int(next[job])
                remaining[later] -= 1
                if remaining[later] == 0 { ready.append(Int32(later)) }
            }
        }
        guard order.count < count, let start = remaining.firstIndex(where: { $0 > 0 }) else {
            return (order, previous)
        }

        let cycle = findCycle(from: Int32(start)) { job in
            let edges = Int(needStart[Int(job)])..<Int(needStart[Int(job) + 1])
            if let need = edges.lazy.map({ needs[$0] }).first(where: { remaining[Int($0)] > 0 }) { return need }
            return previous[Int(job)]
        }
        var steps = [String]()
        for (waiter, awaited) in zip(cycle, cycle.dropFirst()) {
            let edges = Int(needStart[Int(waiter)])..<Int(needStart[Int(waiter) + 1])
            if edges.contains(where: { needs[$0] == awaited }) {
                steps.append("'\(ids[Int(waiter)])' needs '\(ids[Int(awaited)])'")
            } else {
                let lane = lanes[Int(laneOfJob(Int(waiter)))].name
                steps.append("'\(ids[Int(waiter)])' waits for '\(ids[Int(awaited)])' to start first in lane '\(lane)'")
            }
        }
        let names = cycle.map { ids[Int($0)] }
        throw WorkflowError(
            code: .laneOrderDeadlock,
            message: "lane order deadlock: " + steps.joined(separator: ", ")
                + " (jobs of an ordered lane start in the order they were added)",
            jobs: names)
    }

    /// Follows `step` from `start` until a job repeats, and returns that cycle, rotated to begin
    /// at its earliest-added job and closed by repeating it: `[a, b, c, a]`.
    private func findCycle(from start: Int32, step: (Int32) -> Int32) -> [Int32] {
        var seenAt = [Int32: Int]()
        var path = [Int32]()
        var job = start
        while seenAt[job] == nil {
            seenAt[job] = path.count
            path.append(job)
            job = step(job)
        }
        var cycle = Array(path[(seenAt[job] ?? 0)...])
        if let first = cycle.indices.min(by: { cycle[$0] < cycle[$1] }) {
            cycle = Array(cycle[first...] + cycle[..<first])
        }
        return cycle + cycle.prefix(1)
    }
}
