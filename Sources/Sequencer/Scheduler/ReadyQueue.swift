import DequeModule
import HeapModule

/// Jobs ready to start, first by priority, then first in, first out (or, with `firstAdded`,
/// lowest job number first: ``RunOptions/ReadyOrder/firstAdded``).
///
/// Within a priority, children (jobs a running job added) start before the other jobs: work
/// already begun finishes first. A parent waits for its children with its task suspended and its
/// state kept; if its children queued behind every job not yet begun, each worker freed by a
/// waiting parent would begin another parent, and a run of parents that each add a child would
/// hold every parent suspended at once (10 KB each, 5 GB for 500,000 parents).
///
/// A job that ends while queued stays in its queue until popped: ``markStale()`` counts it, and
/// ``popLive(_:)`` passes over it.
struct ReadyQueue {
    /// The jobs of the workflow, or added by a queue's caller.
    private var others = ByPriority()
    /// The children.
    private var children = ByPriority()
    private(set) var count = 0
    /// Entries in `children`: while none, a pop reads `others` alone.
    private var childCount = 0
    /// Entries whose job is no longer queued.
    private(set) var stale = 0
    /// With `firstAdded`, every entry is kept here instead, by priority then job number (a
    /// job's number is its place in the order jobs were added).
    private var byNumber: Heap<Entry>?

    struct Entry: Comparable {
        var job: Int32
        var priority: Priority
        /// The highest priority first, then the lowest number.
        static func < (lhs: Entry, rhs: Entry) -> Bool {
            lhs.priority != rhs.priority ? lhs.priority > rhs.priority : lhs.job < rhs.job
        }
    }

    init(firstAdded: Bool = false) {
        byNumber = firstAdded ? Heap() : nil
    }

    var isEmpty: Bool { count == 0 }

    /// Queues `job` after the jobs of its priority (after the children, for a child).
    mutating func append(_ job: Int32, priority: Priority, child: Bool = false) {
        count += 1
        if byNumber != nil {
            byNumber?.insert(Entry(job: job, priority: priority))
        } else if child {
            childCount += 1
            children.append(job, priority)
        } else {
            others.append(job, priority)
        }
    }

    /// Puts `job` back at the front of its priority's queue: a job taken and given back, which
    /// goes before the jobs queued after it was taken. (With `firstAdded`, its number places it.)
    mutating func putBack(_ job: Int32, priority: Priority, child: Bool = false) {
        count += 1
        if byNumber != nil {
            byNumber?.insert(Entry(job: job, priority: priority))
        } else if child {
            childCount += 1
            children.prepend(job, priority)
        } else {
            others.prepend(job, priority)
        }
    }

    /// A queued job ended (or moved) while its entry is still in the queue.
    mutating func markStale() { stale += 1 }

    /// Removes the first job of the highest priority that is still queued.
    mutating func popLive(_ jobs: JobTable) -> Int32? {
        while let job = popFirst() {
            // While no entry is stale, the job's phase need not be read: one cache miss less
            // under the lock.
            // A queue may have forgotten a stale entry's job (it ended, and no one reads it).
            if stale > 0, !jobs.contains(job) || jobs[job].phase != .queued {
                stale -= 1
                continue
            }
            return job
        }
        return nil
    }

    /// Removes the first job of the highest priority: its first child, else its oldest job.
    mutating func popFirst() -> Int32? {
        guard count > 0 else { return nil }
        count -= 1
        if byNumber != nil { return byNumber?.popMin()?.job }
        guard childCount > 0 else { return others.popFirst() }
        for priority in Priority.allCases.reversed() {
            if let job = children.popFirst(priority) {
                childCount -= 1
                return job
            }
            if let job = others.popFirst(priority) { return job }
        }
        return nil
    }
}

/// One queue of jobs per priority, in fixed fields rather than an array of queues, so that a
/// push or a pop touches one buffer.
private struct ByPriority {
    private var background = Deque<Int32>()
    private var utility = Deque<Int32>()
    private var userInitiated = Deque<Int32>()
    private var userInteractive = Deque<Int32>()

    mutating func append(_ job: Int32, _ priority: Priority) {
        withQueue(priority) { $0.append(job) }
    }

    mutating func prepend(_ job: Int32, _ priority: Priority) {
        withQueue(priority) { $0.prepend(job) }
    }

    mutating func popFirst(_ priority: Priority) -> Int32? {
        withQueue(priority) { $0.popFirst() }
    }

    /// The oldest job of the highest priority.
    mutating func popFirst() -> Int32? {
        if let job = userInteractive.popFirst() { return job }
        if let job = userInitiated.popFirst() { return job }
        if let job = utility.popFirst() { return job }
        return background.popFirst()
    }

    @inline(__always)
    private mutating func withQueue<Result>(_ priority: Priority, _ body: (inout Deque<Int32>) -> Result) -> Result {
        switch priority {
        case .background: body(&background)
        case .utility: body(&utility)
        case .userInitiated: body(&userInitiated)
        case .userInteractive: body(&userInteractive)
        }
    }
}
