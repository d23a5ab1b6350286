/// Child jobs: jobs a running body adds to its run (a dynamic group).
///
/// A child is a job like any other: it waits for its needs, takes a lane slot and a worker. A
/// parent that waits for its children gives up its worker slot while it waits, so that its
/// children can run even when every slot is taken (at `maxConcurrency: 1`, a parent and its
/// child never run at once). When they have ended, the parent resumes as soon as a slot is free,
/// before any new job starts.
extension SchedulerState {
    /// A job to add at run time, checked by ``addChild(_:to:)``.
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
    /// - Throws: ``WorkflowError`` for a duplicate ID, an unknown need, an undeclared lane, a
    ///   lane its waiting parent holds, a bad option, or a parent that is no longer running.
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
        if let options = request.options, let key = options.coalesce {
            var keys = plan.coalescingKeys.merging(dynamicCoalescingKeys) { first, _ in first }
            try CoalescingKey.check(key, job: id, type: options.valueType, in: &keys)
            if keys[key]?.firstJob == id { dynamicCoalescingKeys[key] = keys[key] }
        }
        var lane: Int32 = -1
        if let name = request.lane {
            guard let found = plan.lane(named: name) else {
                throw failure(.unknownLane, "child '\(id)' uses lane '\(name)', which the workflow never declared with lane(_:width:)", [id])
            }
            if found == jobs[Int(parent)].lane, plan.lanes[Int(found)].width == 1 {
                throw failure(
                    .laneOrderDeadlock,
                    "child '\(id)' uses lane '\(name)' of width 1, which its parent '\(parentID)' holds until its children end: it could never start",
                    [parentID, id])
            }
            lane = found
        }
        var needs: [Int32] = []
        for name in request.needs {
            guard let need = job(name) ?? job(JobID("\(prefix)/\(name)")) else {
                throw failure(.unknownNeed, "child '\(id)' needs '\(name)', which is not a job of the run (yet); a child can need jobs added before it", [id, name])
            }
            needs.append(need)
        }

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
        } else if let stopReason {
            let code: JobError.Code = stopReason == .deadline ? .deadlineExceeded : .cancelled
            end(child, .cancelled, FailureRecord(code: code))
        } else if remaining == 0 {
            becomeReady(child)
        }
        dispatch(into: &actions)
        return child
    }

    /// The worker running `parent` waits until `target` (one of its children, or -1 for every
    /// child) has ended. Returns true when it already has; otherwise the parent's worker slot is
    /// given up and `continuation` is resumed when the children ended and a slot is free.
    mutating func waitForChildren(
        of parent: Int32, target: Int32, _ continuation: CheckedContinuation<Void, Never>, into actions: inout Actions
    ) -> Bool {
        guard let group = groups[parent], !isSatisfied(group, target) else { return true }
        guard let slot = workerJob.firstIndex(of: parent), !workerSuspended[slot] else { return true }
        groups[parent]?.waiter = (slot, target, continuation)
        workerSuspended[slot] = true
        liveWorkers -= 1
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

    /// A child ended: its parent may resume.
    mutating func childEnded(_ child: Int32) {
        let parent = self.parent(of: child)
        guard var group = groups[parent] else { return }
        group.unfinished -= 1
        if let waiter = group.waiter, isSatisfied(group, waiter.target) {
            group.waiter = nil
            resumable.append((waiter.slot, waiter.continuation))
        }
        groups[parent] = group
    }

    private func isSatisfied(_ group: ChildGroup, _ target: Int32) -> Bool {
        target >= 0 ? jobs[Int(target)].phase.isTerminal : group.unfinished == 0
    }
}
