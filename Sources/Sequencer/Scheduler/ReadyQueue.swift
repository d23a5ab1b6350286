import DequeModule
import HeapModule

/// Jobs ready to start, first by priority, then first in, first out (or, with `firstAdded`,
/// lowest job number first: ``RunOptions/ReadyOrder/firstAdded``).
///
/// One queue per priority, held in fixed fields rather than an array of queues, so that a push
/// or a pop touches one buffer. A job that ends while queued stays in its queue until popped:
/// ``markStale()`` counts it, and ``popLive(_:)`` passes over it.
struct ReadyQueue {
    private var background = Deque<Int32>()
    private var utility = Deque<Int32>()
    private var userInitiated = Deque<Int32>()
    private var userInteractive = Deque<Int32>()
    private(set) var count = 0
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

    mutating func append(_ job: Int32, priority: Priority) {
        if byNumber != nil {
            byNumber?.insert(Entry(job: job, priority: priority))
            count += 1
            return
        }
        switch priority {
        case .background: background.append(job)
        case .utility: utility.append(job)
        case .userInitiated: userInitiated.append(job)
        case .userInteractive: userInteractive.append(job)
        }
        count += 1
    }

    /// Puts `job` back at the front of its priority's queue: a job taken and given back, which
    /// goes before the jobs queued after it was taken. (With `firstAdded`, its number places it.)
    mutating func putBack(_ job: Int32, priority: Priority) {
        count += 1
        if byNumber != nil {
            byNumber?.insert(Entry(job: job, priority: priority))
            return
        }
        switch priority {
        case .background: background.prepend(job)
        case .utility: utility.prepend(job)
        case .userInitiated: userInitiated.prepend(job)
        case .userInteractive: userInteractive.prepend(job)
        }
    }

    /// A queued job ended (or moved) while its entry is still in the queue.
    mutating func markStale() { stale += 1 }

    /// Removes the oldest job of the highest priority that is still queued.
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

    /// Removes the oldest job of the highest priority.
    mutating func popFirst() -> Int32? {
        guard count > 0 else { return nil }
        count -= 1
        if byNumber != nil { return byNumber?.popMin()?.job }
        if let job = userInteractive.popFirst() { return job }
        if let job = userInitiated.popFirst() { return job }
        if let job = utility.popFirst() { return job }
        return background.popFirst()
    }
}
