/// Child jobs: jobs a running body adds to its run (a dynamic group).
///
/// A child is a job like any other: it waits for its needs, takes a lane slot and a worker. A
/// parent that waits for its children gives up its worker slot and its lane slot while it
/// waits, so that its children can run even when every slot is taken (at `maxConcurrency: 1`, a
/// parent and its child never run at once). When they have ended, the parent resumes as soon as
/// both slots are free, before any new job starts.
///
/// ``ChildGroups`` owns the children, the waits and the queue of waits to resume; these events
/// tell it what happened and move the worker and lane slots.
extension SchedulerState {
    /// A job to add at run time, checked by ``addChild(_:to:)`` (a child) or ``add(_:ticket:)``
    /// (a queue's job: `name` and `id` are its ID, `prefix` is empty).
    struct ChildRequest {
        var name: JobID
        /// Its full ID (the parent's ID, a slash and `name`), built before taking the lock.
        var id: JobID
        /// The parent's ID, with the attempt when it is a retry: siblings are named from it.
        var prefix: String
        var job: JobRequest
    }

    /// Adds a child to the running job `parent`. Its ID is the parent's ID, a slash and its name.
    /// Returns the child's number with the actions.
    /// - Throws: ``WorkflowError`` for a duplicate ID, an unknown need, a need that waits for an
    ///   ancestor (see ``checkNeedsWaitForNoAncestor(_:of:parent:)``), an undeclared lane, a bad
    ///   option or a key an ancestor leads, or a parent that is no longer running.
    mutating func addChild(_ request: ChildRequest, to parent: Int32) throws -> (Int32, Actions) {
        if closeBatch(holding: parent) {  // its worker runs it alone from now on
            takesBatches = false  // and so does every worker: the run's jobs are parents
        }
        let parentID = id(of: parent)
        let (prefix, id) = (request.prefix, request.id)
        func failure(_ code: WorkflowError.Code, _ message: String, _ jobs: [JobID]) -> WorkflowError {
            WorkflowError(code: code, message: message, jobs: jobs)
        }
        guard jobs[parent].phase == .running, !cancelRequested.contains(parent), !isFinished else {
            throw failure(.invalidOption, "job '\(parentID)' added child '\(id)' after it ended or was cancelled", [parentID, id])
        }
        func duplicate() -> WorkflowError {
            failure(.duplicateJob, "job '\(parentID)' added child '\(id)', but the run already has a job with that ID", [id])
        }
        guard plan.job(id) == nil else { throw duplicate() }
        if let problem = request.job.options?.problem(job: id) { throw failure(.invalidOption, problem, [id]) }
        if let options = request.job.options, let name = options.coalesce {
            try checkChildKey(name, for: id, type: options.valueType, parent: parent)
        }
        var lane: Int?
        if let name = request.job.lane {
            guard let found = lanes.firstIndex(where: { $0.name == name }) else {
                throw failure(.unknownLane, "child '\(id)' uses lane '\(name)', which the workflow never declared with lane(_:width:)", [id])
            }
            lane = found
        }
        var needs: [Int32] = []
        for name in request.job.needs {
            guard let need = job(name) ?? job(JobID("\(prefix)/\(name)")) else {
                throw failure(.unknownNeed, "child '\(id)' needs '\(name)', which is not a job of the run (yet); a child can need jobs added before it", [id, name])
            }
            for ancestor in lineage(from: parent) where ancestor == need {
                throw failure(.invalidOption, "child '\(id)' needs '\(name)', which waits for it to end: it could never start", [id, name])
            }
            needs.append(need)
        }
        if !needs.isEmpty { try checkNeedsWaitForNoAncestor(needs, of: id, parent: parent) }
        // Last, as it records the ID when it is free.
        guard added.claim(id, for: jobs.end) else { throw duplicate() }
        // Checked above: the key is recorded only once the child is sure to be added, so that a
        // refused child leaves no user of the key behind.
        var key: Int32?
        if let options = request.job.options, let name = options.coalesce {
            key = try useChildKey(name, for: id, type: options.valueType)
        }

        // Checked: add it.
        let child = appendJob(JobState(lane: lane, priority: max(request.job.priority, jobs[parent].priority)))
        added.appendClaimed(
            AddedJob(
                id: id, body: request.job.body, hasValue: request.job.hasValue,
                parent: parent, needs: needs, lane: lane, key: key),
            options: request.job.options)
        groups.add(child, to: parent)
        // A queue keeps what the child needs until it ends: its body may read their values.
        if keepFinished != nil {
            for need in needs where !isPlanned(need) { added[need].readers += 1 }
        }

        admitAdded(child, needs: needs, raising: nil)
        return (child, flush())
    }

    /// `parent` and its ancestors, nearest first.
    func lineage(from parent: Int32) -> [Int32] {
        var lineage = [parent]
        while let next = self.parent(of: lineage[lineage.count - 1]) { lineage.append(next) }
        return lineage
    }

    /// Throws when one of a new child's needs waits for an ancestor of the child: directly or
    /// not, through the jobs it needs (while it waits to start), its unfinished children and the
    /// leader it joined (see ``waitPath(from:to:seen:)``). The ancestor waits for the child, which
    /// would wait for its need: none of them could end. Visits only the unfinished jobs the needs
    /// wait for, each once; a need that has ended or that waits for nothing costs nothing more.
    private mutating func checkNeedsWaitForNoAncestor(_ needs: [Int32], of id: JobID, parent: Int32) throws {
        let ancestors = Set(lineage(from: parent))
        var seen: [Int32: WaitStep] = [:]
        for need in needs where !jobs[need].phase.isTerminal && seen[need] == nil {
            seen[need] = WaitStep(from: nil, reason: .needs)
            guard let path = waitPath(from: need, to: ancestors.contains, seen: &seen) else { continue }
            let steps = zip(path, path.dropFirst()).map { step, next in
                let (job, reason) = step
                switch reason {
                case .needs: return "'\(self.id(of: job))' needs '\(self.id(of: next.0))'"
                case .child: return "'\(self.id(of: job))' waits for its child '\(self.id(of: next.0))'"
                case .joined: return "'\(self.id(of: job))' joined '\(self.id(of: next.0))'"
                case .turn: return "'\(self.id(of: job))' waits for its turn behind '\(self.id(of: next.0))' in its lane"
                }
            }
            let (needID, ancestorID) = (self.id(of: need), self.id(of: path[path.count - 1].0))
            throw WorkflowError(
                code: .invalidOption,
                message: "child '\(id)' needs '\(needID)', which waits for '\(ancestorID)' to end (\(steps.joined(separator: ", "))): it could never start",
                jobs: [id] + path.map { self.id(of: $0.0) })
        }
    }

    /// The worker running `parent` waits until `target` (one of its children, or nil for every
    /// child) has ended. The actions' ``SchedulerActions/resume`` holds `waiter` when it already
    /// has; otherwise the parent gives up its worker slot and its lane slot, and `waiter` is
    /// resumed when the children ended and both slots are free again. A body may wait in
    /// several places at once (`async let`, a task group): the slots are given up at the first
    /// wait and taken back when the last pending wait resumes (see ``childEnded(_:)``). A wait
    /// that begins while an earlier one is queued to take the slots back (in `resumable`,
    /// waiting for a free worker or lane slot) becomes the last pending wait: the earlier one
    /// resumes at once without the slots, and this one takes them back when it resumes.
    /// `earlier` are the ends its worker holds of the jobs of its batch it ran before `parent`:
    /// they end now, rather than when the parent does.
    mutating func waitForChildren(
        of parent: Int32, target: Int32?, slot: Int, _ waiter: Waiter, earlier: [(job: Int32, completion: Completion)] = []
    ) -> Actions {
        closeBatch(of: slot)
        settleHeld(earlier)
        guard !groups.isOver(parent: parent, target: target, jobs: jobs),
            workers[slot].job == parent  // otherwise abandoned: it runs detached
        else {
            outbox.resume.append(waiter)
            return flush()
        }
        groups.addWait(parent: parent, target: target, slot: slot, waiter)
        if !workers[slot].suspended {
            workers.suspend(slot)
            releaseLane(of: parent)
        } else if let reserved = groups.unqueueSlot(slot), reserved, let lane = jobs[parent].lane {
            // The body still waits here: taking the slots back now would hold a worker (and a
            // lane slot) while this wait's child may need it. The lane's place held for the
            // parent goes to the jobs waiting for it.
            reserveLane(for: parent, by: -1)
            admit(lane: lane)
        }
        return flush()
    }

    /// Whether `job` added children that have not ended.
    func hasUnfinishedChildren(_ job: Int32) -> Bool {
        groups.hasUnfinished(job)
    }

    /// The children `job` added, in order.
    func children(of job: Int32) -> [Int32] {
        groups.children(of: job)
    }

    /// Whether `child` is a child of `parent`.
    func isChild(_ child: Int32, of parent: Int32) -> Bool {
        jobs.contains(child) && self.parent(of: child) == parent
    }

    /// A child ended: the waits of its parent that it satisfies may resume. While other waits of
    /// the parent are still pending, the parent's body is still waiting: those that resume do
    /// without a slot. The last pending wait to resume takes the parent's slots back.
    mutating func childEnded(_ child: Int32) {
        guard let parent = self.parent(of: child) else { return }
        // The parent's slot, known once it waited (a parent that never waited has no waiters),
        // when it gave it up to wait.
        let slot = groups.waitSlot(of: parent).flatMap { workers[$0].job == parent && workers[$0].suspended ? $0 : nil }
        if groups.childEnded(of: parent, suspendedSlot: slot, jobs: jobs) { reserveLane(for: parent, by: 1) }
    }

    /// Resumes the parents whose children ended, in order, while their worker and lane slots
    /// are free. An idle worker retires to make room. A wait whose parent already has its slots
    /// back (another of its waits resumed first) resumes at once.
    mutating func resumeParents() {
        // Waits that need no slot resume at once.
        outbox.resume.append(contentsOf: groups.takeSlotlessWaits())
        var position = 0
        while position < groups.resumable.count {
            let entry = groups.resumable[position]
            guard let slot = entry.slot, workers[slot].suspended, let parent = workers[slot].job else {
                _ = groups.removeResumable(at: position)
                if entry.reserved, let slot = entry.slot, let parent = workers[slot].job { reserveLane(for: parent, by: -1) }
                outbox.resume.append(entry.waiter)
                continue
            }
            let lane = jobs[parent].lane
            if let lane, lanes[lane].used >= lanes[lane].width {
                position += 1  // its lane is full: it waits for a slot there, others may go
                continue
            }
            if !workers.hasRoom {
                guard let (idleSlot, idleWaiter) = workers.idle.popLast() else { break }
                workers.retire(idleSlot)
                outbox.wake.append((idleWaiter, nil))
            }
            _ = groups.removeResumable(at: position)
            workers.unsuspend(slot)
            if entry.reserved { reserveLane(for: parent, by: -1) }
            if let lane { lanes[lane].take() }
            outbox.resume.append(entry.waiter)
        }
    }

    /// A parent about to resume holds a place in its lane, so that the lane does not admit new
    /// jobs into the slot it needs.
    mutating func reserveLane(for parent: Int32, by change: Int) {
        if let lane = jobs[parent].lane { lanes[lane].reserve(change) }
    }
}
