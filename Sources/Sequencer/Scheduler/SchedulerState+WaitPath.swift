/// Who waits for whom: the paths of waits that `addChild` and coalescing check, so that no job
/// ever waits for itself.
extension SchedulerState {
    /// Whether `job` waits, directly or not, for `other` to end (see ``waitPath(from:to:seen:)``).
    mutating func waits(_ job: Int32, for other: Int32) -> Bool {
        var seen: [Int32: WaitStep] = [job: WaitStep(from: nil, reason: .child)]
        return waitPath(from: job, to: { $0 == other }, seen: &seen) != nil
    }

    /// Why a job waits for the next one on a path.
    enum WaitReason {
        /// It is a parent and the next is one of its unfinished children.
        case child
        /// It joined the next, a coalesced leader.
        case joined
        /// It is waiting for its needs, and the next is one of them that has not ended.
        case needs
        /// It waits for its turn in an ordered lane, and the next is the job ahead of it there,
        /// which has not started.
        case turn
    }

    /// How a search reached a job: from which, and why that one waits for it.
    struct WaitStep {
        /// Nil for where a search started.
        var from: Int32?
        var reason: WaitReason
    }

    /// A path of waits from `start` to a job `isTarget` accepts, as (job, why it waits for the
    /// next) pairs ending with the target (whose reason is meaningless), or nil. A job waits for
    /// its unfinished children, for the leader it joined, and, while it waits to start, for its
    /// needs that have not ended. A child with a key that has not been taken yet, or that runs
    /// its own body, has joined no one: it does not make its ancestors wait for its key's
    /// leader. (Should it join later, that join is checked then: no job ever waits for itself.)
    ///
    /// `seen` holds the jobs already searched (with `start`): a search that found nothing can
    /// share it with the next. Visits only what `start` waits for, each job once.
    mutating func waitPath(from start: Int32, to isTarget: (Int32) -> Bool, seen: inout [Int32: WaitStep]) -> [(Int32, WaitReason)]? {
        var stack = [start]
        func visit(_ next: Int32, from current: Int32, _ reason: WaitReason) -> Bool {
            guard seen[next] == nil else { return false }
            seen[next] = WaitStep(from: current, reason: reason)
            stack.append(next)
            return isTarget(next)
        }
        func path(to target: Int32) -> [(Int32, WaitReason)] {
            var path: [(Int32, WaitReason)] = [(target, .child)]
            var current = target
            while current != start, let step = seen[current], let from = step.from {
                path.append((from, step.reason))
                current = from
            }
            return path.reversed()
        }
        while let current = stack.popLast() {
            let state = jobs[current]
            if state.phase == .waiting || state.phase == .laneWaiting, let ahead = jobAhead(of: current) {
                // Its turn in an ordered lane comes after the job ahead of it has started.
                if visit(ahead, from: current, .turn) { return path(to: ahead) }
            }
            if state.phase == .waiting {
                if isPlanned(current) {
                    for edge in plan.needRange(of: Int(current)) {
                        let need = plan.needs[edge]
                        if !jobs[need].phase.isTerminal, visit(need, from: current, .needs) { return path(to: need) }
                    }
                } else {
                    for need in added[current].needs where !jobs[need].phase.isTerminal {
                        if visit(need, from: current, .needs) { return path(to: need) }
                    }
                }
                continue  // it has not started: no children, no join
            }
            guard state.phase == .running else { continue }
            if !groups.isEmpty, groups.hasUnfinished(current) {
                for child in groups.children(of: current) where !jobs[child].phase.isTerminal {
                    if visit(child, from: current, .child) { return path(to: child) }
                }
            }
            if let key = key(of: current), let run = coalescing[key], run.leader != current, run.joiners.contains(current) {
                if visit(run.leader, from: current, .joined) { return path(to: run.leader) }
            }
        }
        return nil
    }
}
