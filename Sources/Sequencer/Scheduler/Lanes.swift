import DequeModule

/// One lane: a limit on how many of its jobs hold a slot at once and, when ordered, the order
/// in which they take slots (ninja's `Pool`, with an order).
///
/// A job holds a slot from when the lane admits it to the ready queue until it ends. Invariants:
/// `used + reserved <= width` after every admission; an ordered lane has at most one job in the
/// ready queue (so priorities among ready jobs cannot reorder it), and admits from the front of
/// ``order`` only, so a job still waiting for its needs holds its place. An ordered lane's
/// ``order`` holds every job of the lane that has not been admitted and has not ended (children
/// excepted), and some that have; it rises in job number (jobs are numbered in the order they
/// are added), so a job is found in it by binary search.
struct Lane {
    let name: String
    private(set) var width: Int
    let ordered: Bool
    /// An ordered lane's jobs that the lane has not passed yet, in the order they were added.
    private var order: Deque<Int32>
    /// How many jobs the lane has passed (removed from the front of ``order``): a job's place in
    /// the order, counted from the lane's first job, is `passed` plus its index in ``order``.
    private var passed = 0
    /// For jobs of ``order`` found started or ended by ``jobAhead(of:_:)``: the place in the order
    /// to look at next, earlier than theirs, every job between having started or ended too.
    /// Jobs never go back to waiting, so a search passes over each such run of jobs once.
    private var skips: [Int32: Int] = [:]
    /// Jobs waiting for a slot outside the lane's order: every job of an unordered lane, and
    /// children (they take a slot but no place in the order).
    private(set) var backlog = Deque<Int32>()
    /// Slots held by jobs queued or running.
    private(set) var used = 0
    /// Slots kept for parents about to resume (admission leaves them to the parents).
    private(set) var reserved = 0
    /// Whether the lane's ordered job is in the ready queue now.
    private(set) var hasQueued = false

    init(name: String, width: Int, ordered: Bool, members: [Int32] = []) {
        self.name = name
        self.width = width
        self.ordered = ordered
        order = Deque(members)
    }

    var isFull: Bool { used + reserved >= width }

    /// A job of the lane whose needs succeeded; it waits outside the order when `inOrder` is false.
    mutating func wait(_ job: Int32, inOrder: Bool) {
        if !ordered || !inOrder { backlog.append(job) }
    }

    /// Adds a job at the end of an ordered lane's order (a job added to a running queue).
    mutating func enter(_ job: Int32) {
        if ordered { order.append(job) }
    }

    /// The next job to admit to the ready queue, taking a slot for it, or nil. `phases` are the
    /// jobs' phases: jobs that started or ended are passed over.
    mutating func admitNext(_ jobs: JobTable) -> Int32? {
        if ordered {
            while let job = order.first {
                // A queue may have forgotten a job of the order that ended: passed over.
                guard jobs.contains(job) else {
                    pass()
                    continue
                }
                let phase = jobs[job].phase
                if phase == .laneWaiting, !isFull, !hasQueued {
                    pass()
                    used += 1
                    hasQueued = true
                    return job
                }
                guard phase.isTerminal || phase == .running || phase == .queued else { break }
                pass()
            }
        }
        while !isFull, let job = backlog.popFirst() {
            guard jobs.contains(job), jobs[job].phase == .laneWaiting else { continue }
            used += 1
            return job
        }
        return nil
    }

    /// Removes the front of ``order``.
    private mutating func pass() {
        let job = order.removeFirst()
        passed += 1
        if !skips.isEmpty { skips[job] = nil }
    }

    /// The job just ahead of `job` in the order that has not started, if any: `job`, waiting in
    /// the order, cannot start before it has. Nil when `job` is not in the order (it was admitted,
    /// or is a child).
    /// - Complexity: O(log n) amortized for n jobs in the order: a binary search, then jumps over
    ///   jobs that started or ended, each jumped over once per search before ``skips`` shortens
    ///   the way for the next.
    mutating func jobAhead(of job: Int32, _ jobs: JobTable) -> Int32? {
        guard ordered, var index = index(of: job) else { return nil }
        var passedOver: [Int32] = []
        var ahead: Int32?
        index -= 1
        while index >= 0 {
            let member = order[index]
            // A queue may have forgotten a job that ended.
            if jobs.contains(member), jobs[member].phase.isPending {
                ahead = member
                break
            }
            passedOver.append(member)
            index = skips[member].map { $0 - passed } ?? index - 1
        }
        // `index` is the place of `ahead`, or before the front: every job passed over may jump there.
        for member in passedOver { skips[member] = passed + index }
        return ahead
    }

    /// Where `job` is in ``order``, if it is there. Job numbers rise along the order; they wrap
    /// around after 2³², so they are compared by their distance from the front.
    private func index(of job: Int32) -> Int? {
        guard let front = order.first else { return nil }
        let target = UInt32(bitPattern: job &- front)
        var (low, high) = (0, order.count)
        while low < high {
            let middle = (low + high) / 2
            if UInt32(bitPattern: order[middle] &- front) < target { low = middle + 1 } else { high = middle }
        }
        return low < order.count && order[low] == job ? low : nil
    }

    /// The lane's ordered job left the ready queue (taken, or ended there).
    mutating func leftQueue() { hasQueued = false }

    /// A job gave its slot back (it ended, or a parent waits for its children).
    mutating func release() { used -= 1 }

    /// A job takes a slot outside admission (a parent resuming, or abandoned while it waited).
    mutating func take() { used += 1 }

    mutating func reserve(_ change: Int) { reserved += change }

    /// Changes the width; slots already held stay held.
    mutating func resize(to width: Int) { self.width = width }

    /// Forgets every slot and queued job: the run stopped starting jobs (see `endPending`);
    /// the caller then counts again the slots of running jobs.
    mutating func clearSlots() {
        used = 0
        hasQueued = false
    }
}
