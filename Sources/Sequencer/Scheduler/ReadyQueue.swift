import DequeModule

/// Jobs ready to start, first by priority, then first in, first out.
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

    var isEmpty: Bool { count == 0 }

    mutating func append(_ job: Int32, priority: Priority) {
        switch priority {
        case .background: background.append(job)
        case .utility: utility.append(job)
        case .userInitiated: userInitiated.append(job)
        case .userInteractive: userInteractive.append(job)
        }
        count += 1
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
        if let job = userInteractive.popFirst() { return job }
        if let job = userInitiated.popFirst() { return job }
        if let job = utility.popFirst() { return job }
        return background.popFirst()
    }
}
