import DequeModule

/// Jobs ready to start, first by priority, then first in, first out.
struct ReadyQueue {
    private var queues = [Deque<Int32>](repeating: [], count: Priority.allCases.count)
    private(set) var count = 0

    init() {}

    init(reservingCapacity capacity: Int) {
        queues[Int(Priority.utility.rawValue)].reserveCapacity(capacity)
    }

    var isEmpty: Bool { count == 0 }

    mutating func append(_ job: Int32, priority: Priority) {
        queues[Int(priority.rawValue)].append(job)
        count += 1
    }

    /// Removes the oldest job of the highest priority.
    mutating func popFirst() -> Int32? {
        guard count > 0 else { return nil }
        var level = queues.count - 1
        while level >= 0 {
            if let job = queues[level].popFirst() {
                count -= 1
                return job
            }
            level -= 1
        }
        return nil
    }
}
