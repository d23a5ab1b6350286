/// The scheduler's part for child jobs: which jobs each parent added, the parent bodies' waits
/// for them, and the waits whose children ended, queued until their parent has its worker and
/// lane slots back.
///
/// It owns this state and keeps it consistent; the scheduler tells it what happened and moves
/// the worker and lane slots itself (see `SchedulerState+Children.swift`). A run whose jobs add
/// no children keeps it empty and pays one `isEmpty` check where it is asked.
struct ChildGroups<Waiter> {
    private var groups: [Int32: ChildGroup<Waiter>] = [:]
    /// Waits of parents whose children ended, in order.
    private(set) var resumable: [ResumableWait<Waiter>] = []

    /// Whether no job has added a child.
    var isEmpty: Bool { groups.isEmpty }

    /// Whether some parent's wait is over and waits to resume.
    var hasResumable: Bool { !resumable.isEmpty }

    /// `child` was added by `parent` and has not ended.
    mutating func add(_ child: Int32, to parent: Int32) {
        groups[parent, default: ChildGroup()].add(child)
    }

    /// The children `job` added, in order.
    func children(of job: Int32) -> [Int32] {
        groups[job]?.children ?? []
    }

    /// Whether `job` added children that have not ended.
    func hasUnfinished(_ job: Int32) -> Bool {
        (groups[job]?.unfinished ?? 0) > 0
    }

    /// How many waits of `job`'s body its children have not satisfied yet.
    func pendingWaits(of job: Int32) -> Int {
        groups[job]?.waiters.count ?? 0
    }

    /// The slot of `job`'s worker, once its body has waited for its children.
    func waitSlot(of job: Int32) -> Int? {
        groups[job]?.slot
    }

    /// Forgets a job a queue no longer keeps.
    mutating func forget(_ job: Int32) {
        if !groups.isEmpty { groups[job] = nil }
    }

    /// Whether a wait of `parent` for `target` (one of its children, or nil for all of them)
    /// would be over now: the target ended, or every child did. A job that added no child has
    /// nothing to wait for.
    func isOver(parent: Int32, target: Int32?, jobs: JobTable) -> Bool {
        groups[parent]?.isSatisfied(target, jobs: jobs) ?? true
    }

    /// Records a wait of `parent`'s body, running in `slot`, for `target`.
    mutating func addWait(parent: Int32, target: Int32?, slot: Int, _ waiter: Waiter) {
        groups[parent]?.waiters.append((target, waiter))
        groups[parent]?.slot = slot
    }

    /// A new wait of the body in `slot` begins while an earlier one is queued there to take the
    /// slots back: the earlier one will resume without them. Returns whether it held a place in
    /// the parent's lane, or nil when no wait was queued for `slot`.
    mutating func unqueueSlot(_ slot: Int) -> Bool? {
        guard let queued = resumable.firstIndex(where: { $0.slot == slot }) else { return nil }
        let reserved = resumable[queued].reserved
        resumable[queued].slot = nil
        resumable[queued].reserved = false
        return reserved
    }

    /// A child of `parent` ended: the waits it satisfies queue to resume, in order. While other
    /// waits of the body are still pending, the body is still waiting: those that resume do so
    /// without a slot. When `slot` is the parent's, given up while it waits, the last pending
    /// wait takes it back. Returns whether one did: it then holds a place in the parent's lane.
    mutating func childEnded(of parent: Int32, suspendedSlot slot: Int?, jobs: JobTable) -> Bool {
        guard let (satisfied, nonePending) = groups[parent]?.childEnded(jobs: jobs), !satisfied.isEmpty else { return false }
        var tookSlot = false
        for (position, entry) in satisfied.enumerated() {
            let takesSlot = slot != nil && nonePending && position == satisfied.count - 1
            tookSlot = tookSlot || takesSlot
            resumable.append(ResumableWait(slot: takesSlot ? slot : nil, waiter: entry.waiter, reserved: takesSlot))
        }
        return tookSlot
    }

    /// The queued waits that take no slot, which resume at once; they leave the queue.
    mutating func takeSlotlessWaits() -> [Waiter] {
        guard resumable.contains(where: { $0.slot == nil }) else { return [] }  // no array built
        let slotless = resumable.filter { $0.slot == nil }.map(\.waiter)
        if !slotless.isEmpty { resumable.removeAll { $0.slot == nil } }
        return slotless
    }

    /// Takes the queued wait at `position` out of the queue: it resumes.
    mutating func removeResumable(at position: Int) -> ResumableWait<Waiter> {
        resumable.remove(at: position)
    }

    /// `parent`, waiting in `slot`, was abandoned: its pending waits and those queued to resume
    /// there leave, to resume now outside the pool.
    mutating func abandonWaits(of parent: Int32, slot: Int) -> (pending: [Waiter], queued: [ResumableWait<Waiter>]) {
        let pending = groups[parent]?.waiters.map(\.waiter) ?? []
        groups[parent]?.waiters = []
        let queued = resumable.filter { $0.slot == slot }
        resumable.removeAll { $0.slot == slot }
        return (pending, queued)
    }
}

/// A job's children: every one it added and how many have not ended.
struct ChildGroup<Waiter> {
    var children: [Int32] = []
    var unfinished = 0
    /// The slot of the parent's worker, once the parent has waited for its children.
    var slot: Int?
    /// The parent body's waits: the child each waits for (nil for all of them).
    var waiters: [(target: Int32?, waiter: Waiter)] = []

    mutating func add(_ child: Int32) {
        children.append(child)
        unfinished += 1
    }

    /// One of its children ended: takes out, in order, the waits that are now satisfied, and
    /// says whether none is left pending.
    mutating func childEnded(jobs: JobTable) -> (satisfied: [(target: Int32?, waiter: Waiter)], nonePending: Bool) {
        unfinished -= 1
        guard !waiters.isEmpty else { return ([], true) }
        // Most often no wait is satisfied yet, or the only one is: no array is built then.
        guard waiters.contains(where: { isSatisfied($0.target, jobs: jobs) }) else { return ([], false) }
        if waiters.count == 1 {
            defer { waiters = [] }
            return (waiters, true)
        }
        var satisfied: [(target: Int32?, waiter: Waiter)] = []
        var kept: [(target: Int32?, waiter: Waiter)] = []
        for entry in waiters {
            if isSatisfied(entry.target, jobs: jobs) { satisfied.append(entry) } else { kept.append(entry) }
        }
        if !satisfied.isEmpty { waiters = kept }
        return (satisfied, waiters.isEmpty)
    }

    /// Whether a wait for `target` (one of the children, or nil for all of them) is over.
    func isSatisfied(_ target: Int32?, jobs: JobTable) -> Bool {
        if let target { return jobs[target].phase.isTerminal }
        return unfinished == 0
    }
}

/// A parent's wait whose children ended: it resumes once the parent has its worker and lane
/// slots back, in the parent's `slot`; with no slot it resumes at once (another wait of the
/// body is still pending, or the parent was abandoned).
struct ResumableWait<Waiter> {
    var slot: Int?
    var waiter: Waiter
    /// Whether it holds a reservation in the parent's lane.
    var reserved: Bool
}

extension ChildGroups: Sendable where Waiter: Sendable {}
extension ChildGroup: Sendable where Waiter: Sendable {}
extension ResumableWait: Sendable where Waiter: Sendable {}
