/// Child jobs: jobs a running body adds to its run (a dynamic group).
///
/// A child is a job like any other: it waits for its needs, takes a lane slot and a worker. A
/// parent that waits for its children gives up its worker slot and its lane slot while it
/// waits, so that its children can run even when every slot is taken (at `maxConcurrency: 1`, a
/// parent and its child never run at once). When they have ended, the parent resumes as soon as
/// both slots are free, before any new job starts.
extension SchedulerState {
    /// A job to add at run time, checked by `addChild(_:to:attempt:into:)`.
    struct ChildRequest {
        var name: JobID
        var needs: [JobID]
        var lane: String?
        var priority: Priority
        var options: JobOptions?
        var body: any JobBody
        var hasValue: Bool
    }

    /// Adds a child to the running job `parent`. Its ID is the parent's ID, a slash and its name.
    /// - Throws: ``WorkflowError`` for a duplicate ID, an unknown need, a need that waits for an
    ///   ancestor (see ``checkNeedsWaitForNoAncestor(_:of:parent:)``), an undeclared lane, a bad
    ///   option or a key an ancestor leads, or a parent that is no longer running.
    mutating func addChild(_ request: ChildRequest, to parent: Int32, attempt: Int, into actions: inout Actions) throws -> Int32 {
        let parentID = id(of: parent)
        let prefix = attempt > 1 ? "\(parentID)#\(attempt)" : parentID.description
        let id = JobID("\(prefix)/\(request.name)")
        func failure(_ code: WorkflowError.Code, _ message: String, _ jobs: [JobID]) -> WorkflowError {
            WorkflowError(code: code, message: message, jobs: jobs)
        }
        guard jobs[Int(parent)].phase == .running, !cancelRequested.contains(parent), !isFinished else {
            throw failure(.invalidOption, "job '\(parentID)' added child '\(id)' after it ended or was cancelled", [parentID, id])
        }
        guard job(id) == nil else {
            throw failure(.duplicateJob, "job '\(parentID)' added child '\(id)', but the run already has a job with that ID", [id])
        }
        if let problem = request.options?.problem(job: id) { throw failure(.invalidOption, problem, [id]) }
        var key: Int32 = -1
        if let options = request.options, let name = options.coalesce {
            key = try childKey(name, for: id, type: options.valueType, parent: parent)
        }
        var lane: Int32 = -1
        if let name = request.lane {
            guard let found = plan.lane(named: name) else {
                throw failure(.unknownLane, "child '\(id)' uses lane '\(name)', which the workflow never declared with lane(_:width:)", [id])
            }
            lane = found
        }
        var needs: [Int32] = []
        for name in request.needs {
            guard let need = job(name) ?? job(JobID("\(prefix)/\(name)")) else {
                throw failure(.unknownNeed, "child '\(id)' needs '\(name)', which is not a job of the run (yet); a child can need jobs added before it", [id, name])
            }
            var ancestor = parent
            while ancestor >= 0 {
                guard ancestor != need else {
                    throw failure(.invalidOption, "child '\(id)' needs '\(name)', which waits for it to end: it could never start", [id, name])
                }
                ancestor = self.parent(of: ancestor)
            }
            needs.append(need)
        }
        if !needs.isEmpty { try checkNeedsWaitForNoAncestor(needs, of: id, parent: parent) }

        // Checked: add it.
        let child = appendJob(JobState(
            remaining: 0, lane: lane, firstDependent: Int32(plan.dependents.count), phase: .waiting,
            priority: max(request.priority, jobs[Int(parent)].priority)))
        dynamic.ids.append(id)
        dynamic.bodies.append(request.body)
        dynamic.options.append(request.options)
        dynamic.hasValue.append(request.hasValue)
        dynamic.parents.append(parent)
        dynamic.needs.append(needs)
        dynamic.lanes.append(lane)
        dynamic.keys.append(key)
        dynamic.lookup[id] = child
        groups[parent, default: ChildGroup()].children.append(child)
        groups[parent, default: ChildGroup()].unfinished += 1

        var failedNeed: Int32 = -1
        var remaining: Int32 = 0
        for need in needs {
            switch jobs[Int(need)].phase {
            case .succeeded: break
            case let phase where phase.isTerminal: failedNeed = need
            default:
                remaining += 1
                dynamic.dependents[need, default: []].append(child)
            }
        }
        jobs[Int(child)].remaining = remaining
        if failedNeed >= 0 {
            end(child, .skipped, FailureRecord(code: .neededJobFailed, underlying: nil, cause: failedNeed))
        } else if case .failure(let cause) = stopReason {
            end(child, .skipped, FailureRecord(code: .runStopped, underlying: nil, cause: cause))
        } else if let stopReason {
            let code: JobError.Code = stopReason == .deadline ? .deadlineExceeded : .cancelled
            end(child, .cancelled, FailureRecord(code: code))
        } else if remaining == 0 {
            becomeReady(child)
        }
        dispatch(into: &actions)
        return child
    }

    /// Throws when one of a new child's needs waits for an ancestor of the child: directly or
    /// not, through the jobs it needs (while it waits to start), its unfinished children and the
    /// leader it joined (see ``waitPath(from:to:seen:)``). The ancestor waits for the child, which
    /// would wait for its need: none of them could end. Visits only the unfinished jobs the needs
    /// wait for, each once; a need that has ended or that waits for nothing costs nothing more.
    private func checkNeedsWaitForNoAncestor(_ needs: [Int32], of id: JobID, parent: Int32) throws {
        var ancestors: Set<Int32> = []
        var ancestor = parent
        while ancestor >= 0 {
            ancestors.insert(ancestor)
            ancestor = self.parent(of: ancestor)
        }
        var seen: [Int32: WaitStep] = [:]
        for need in needs where !jobs[Int(need)].phase.isTerminal && seen[need] == nil {
            seen[need] = WaitStep(from: -1, reason: .needs)
            guard let path = waitPath(from: need, to: ancestors.contains, seen: &seen) else { continue }
            let steps = zip(path, path.dropFirst()).map { step, next in
                let (job, reason) = step
                switch reason {
                case .needs: return "'\(self.id(of: job))' needs '\(self.id(of: next.0))'"
                case .child: return "'\(self.id(of: job))' waits for its child '\(self.id(of: next.0))'"
                case .joined: return "'\(self.id(of: job))' joined '\(self.id(of: next.0))'"
                }
            }
            let (needID, ancestorID) = (self.id(of: need), self.id(of: path[path.count - 1].0))
            throw WorkflowError(
                code: .invalidOption,
                message: "child '\(id)' needs '\(needID)', which waits for '\(ancestorID)' to end (\(steps.joined(separator: ", "))): it could never start",
                jobs: [id] + path.map { self.id(of: $0.0) })
        }
    }

    /// The worker running `parent` waits until `target` (one of its children, or -1 for every
    /// child) has ended. Returns true when it already has; otherwise the parent gives up its
    /// worker slot and its lane slot, and `continuation` is resumed when the children ended and
    /// both slots are free again. A body may wait in several places at once (`async let`, a task
    /// group): the slots are given up at the first wait and taken back when the last pending wait
    /// resumes (see ``childEnded(_:)``). A wait that begins while an earlier one is queued to
    /// take the slots back (in `resumable`, waiting for a free worker or lane slot) becomes the
    /// last pending wait: the earlier one resumes at once without the slots, and this one takes
    /// them back when it resumes.
    mutating func waitForChildren(
        of parent: Int32, target: Int32, _ continuation: CheckedContinuation<Void, Never>, into actions: inout Actions
    ) -> Bool {
        guard let group = groups[parent], !isSatisfied(group, target) else { return true }
        guard let slot = workerJob.firstIndex(of: parent) else { return true }  // abandoned: it runs detached
        groups[parent]?.waiters.append((target, continuation))
        if !workerSuspended[slot] {
            workerSuspended[slot] = true
            liveWorkers -= 1
            releaseLane(of: parent)
        } else if let queued = resumable.firstIndex(where: { $0.slot == slot }) {
            // The body still waits here: taking the slots back now would hold a worker (and a
            // lane slot) while this wait's child may need it. The lane's place held for the
            // parent goes to the jobs waiting for it.
            let lane = jobs[Int(parent)].lane
            if resumable[queued].reserved, lane >= 0 {
                reserveLane(for: parent, by: -1)
                admit(lane: Int(lane))
            }
            resumable[queued] = (-1, resumable[queued].continuation, false)
        }
        dispatch(into: &actions)
        return false
    }

    /// Whether `job` added children that have not ended.
    func hasUnfinishedChildren(_ job: Int32) -> Bool {
        (groups[job]?.unfinished ?? 0) > 0
    }

    /// The children `job` added, in order.
    func children(of job: Int32) -> [Int32] {
        groups[job]?.children ?? []
    }

    /// Whether `child` is a child of `parent`.
    func isChild(_ child: Int32, of parent: Int32) -> Bool {
        Int(child) >= plan.count && Int(child) < jobs.count && self.parent(of: child) == parent
    }

    /// A child ended: the waits of its parent that it satisfies may resume. While other waits of
    /// the parent are still pending, the parent's body is still waiting: those that resume do
    /// without a slot. The last pending wait to resume takes the parent's slots back.
    mutating func childEnded(_ child: Int32) {
        let parent = self.parent(of: child)
        guard var group = groups[parent] else { return }
        group.unfinished -= 1
        let slot = workerJob.firstIndex(of: parent) ?? -1
        let suspended = slot >= 0 && workerSuspended[slot]
        let satisfied = group.waiters.filter { isSatisfied(group, $0.target) }
        guard !satisfied.isEmpty else {
            groups[parent] = group
            return
        }
        let pending = group.waiters.filter { !isSatisfied(group, $0.target) }
        group.waiters = pending
        for (position, waiter) in satisfied.enumerated() {
            let takesSlot = suspended && group.waiters.isEmpty && position == satisfied.count - 1
            if takesSlot { reserveLane(for: parent, by: 1) }
            resumable.append((takesSlot ? slot : -1, waiter.continuation, takesSlot))
        }
        groups[parent] = group
    }

    /// Resumes the parents whose children ended, in order, while their worker and lane slots
    /// are free. An idle worker retires to make room. A wait whose parent already has its slots
    /// back (another of its waits resumed first) resumes at once.
    mutating func resumeParents(into actions: inout Actions) {
        // Waits that need no slot resume at once.
        for entry in resumable where entry.slot < 0 { actions.resume.append(entry.continuation) }
        resumable.removeAll { $0.slot < 0 }
        var position = 0
        while position < resumable.count {
            let (slot, continuation, reserved) = resumable[position]
            guard workerSuspended[slot] else {
                resumable.remove(at: position)
                if reserved { reserveLane(for: workerJob[slot], by: -1) }
                actions.resume.append(continuation)
                continue
            }
            let parent = workerJob[slot]
            let lane = jobs[Int(parent)].lane
            if lane >= 0, laneUsed[Int(lane)] >= plan.lanes[Int(lane)].width {
                position += 1  // its lane is full: it waits for a slot there, others may go
                continue
            }
            if liveWorkers >= maxWorkers {
                guard let (idleSlot, idleContinuation) = idle.popLast() else { break }
                actions.wake.append((idleContinuation, retire(slot: idleSlot)))
            }
            resumable.remove(at: position)
            workerSuspended[slot] = false
            liveWorkers += 1
            if reserved { reserveLane(for: parent, by: -1) }
            if lane >= 0 { laneUsed[Int(lane)] += 1 }
            actions.resume.append(continuation)
        }
    }

    /// A parent about to resume holds a place in its lane, so that the lane does not admit new
    /// jobs into the slot it needs.
    mutating func reserveLane(for parent: Int32, by change: Int) {
        let lane = jobs[Int(parent)].lane
        if lane >= 0 { laneReserved[Int(lane)] += change }
    }

    private func isSatisfied(_ group: ChildGroup, _ target: Int32) -> Bool {
        target >= 0 ? jobs[Int(target)].phase.isTerminal : group.unfinished == 0
    }
}
