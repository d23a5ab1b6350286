import DequeModule

/// One lane: a limit on how many of its jobs hold a slot at once and, when ordered, the order
/// in which they take slots (ninja's `Pool`, with an order).
///
/// A job holds a slot from when the lane admits it to the ready queue until it ends. Invariants:
/// `used + reserved <= width` after every admission; an ordered lane has at most one job in the
/// ready queue (so priorities among ready jobs cannot reorder it), and admits from the front of
/// ``order`` only, so a job still waiting for its needs holds its place.
struct Lane {
    let name: String
    private(set) var width: Int
    let ordered: Bool
    /// An ordered lane's jobs that the lane has not passed yet, in the order they were added.
    private(set) var order: Deque<Int32>
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
                let phase = jobs[job].phase
                if phase == .laneWaiting, !isFull, !hasQueued {
                    order.removeFirst()
                    used += 1
                    hasQueued = true
                    return job
                }
                guard phase.isTerminal || phase == .running || phase == .queued else { break }
                order.removeFirst()
            }
        }
        while !isFull, let job = backlog.popFirst() {
            guard jobs[job].phase == .laneWaiting else { continue }
            used += 1
            return job
        }
        return nil
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
