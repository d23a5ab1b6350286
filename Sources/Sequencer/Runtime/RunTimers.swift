/// The timers of one run, earliest first: each running attempt's timeout and each cancelled
/// job's grace period, with the bookkeeping of the one task that sleeps until the earliest.
///
/// A value-type state machine, like ``SchedulerState``: it knows nothing of tasks or clocks.
/// ``RunCore`` calls it under its own lock (not the scheduler's) and starts a driver task when
/// a call says so. At most one attempt runs per worker, so the heap holds about as many timers
/// as there are workers, and arming or stopping one costs O(log workers) and, once the heap
/// and its slots have grown to that size, no allocation.
///
/// ```swift
/// var timers = RunTimers()
/// let (token, start) = timers.arm(timeoutOf: 7, at: 5_000)  // start: a driver until 5_000
/// timers.stop(token)                                       // true: stopped before it fired
/// ```
///
/// Whether an attempt timed out is decided here, once: ``stop(_:)`` before the timer fires
/// means in time, and a timer that fired (``wake(_:now:)``) makes ``stop(_:)`` return false.
struct RunTimers {
    enum Kind: UInt8, Sendable {
        /// A running attempt's own timeout.
        case timeout
        /// The grace period of a cancelled job: abandon it if its body has not returned.
        case gracePeriod
    }

    /// A timer that fired: when it was due, what it is for, and for which job.
    struct Timer: Equatable, Sendable {
        let deadline: Int64
        let kind: Kind
        let job: Int32
    }

    /// An armed timeout, to stop when its attempt ends.
    struct Token: Equatable, Sendable {
        fileprivate let slot: Int32
    }

    /// A driver to start: a task that sleeps until `wakesAt`, then calls ``wake(_:now:)`` with `id`.
    struct Start: Equatable, Sendable {
        let id: UInt64
        let wakesAt: Int64
    }

    /// What a driver does after waking.
    enum Step: Equatable, Sendable {
        /// Carry these out, in this order, then call ``wake(_:now:)`` again.
        case fire([Timer])
        /// Sleep until then, then call ``wake(_:now:)`` again.
        case sleep(until: Int64)
        /// End: nothing is armed, a newer driver took over, or the run ended.
        case stop
    }

    private struct Entry {
        let timer: Timer
        /// Breaks ties between equal deadlines: the timer armed first fires first.
        let order: UInt64
        /// The timeout's slot; nil for a grace period, which is never stopped.
        let slot: Int32?

        func isBefore(_ other: Entry) -> Bool {
            timer.deadline != other.timer.deadline ? timer.deadline < other.timer.deadline : order < other.order
        }
    }

    /// Where an armed timeout's token points.
    private enum Slot {
        /// Waiting, at this index of the heap.
        case armed(Int)
        /// Fired before its attempt ended.
        case fired
        /// Not in use: the attempt stopped its timer.
        case free
    }

    /// A binary min-heap by (deadline, order).
    private var heap: [Entry] = []
    private var slots: [Slot] = []
    private var freeSlots: [Int32] = []
    private var nextOrder: UInt64 = 0
    /// The current driver, and when it wakes; `wakesAt` is nil while it fires timers (it looks
    /// at the heap again before sleeping).
    private var driver: (id: UInt64, wakesAt: Int64?)?
    /// How many drivers were started: each is a task.
    private(set) var driversStarted: UInt64 = 0
    /// Set when the run ended: no driver starts or wakes again.
    private(set) var isClosed = false

    /// How many timers wait.
    var count: Int { heap.count }
    /// How many token slots exist: the most timeouts ever armed at once.
    var slotCapacity: Int { slots.count }
    /// The earliest deadline that waits.
    var earliest: Int64? { heap.first?.timer.deadline }

    /// Arms the timeout of an attempt of `job`, due at `deadline`.
    /// - Returns: the token to ``stop(_:)`` it with, and a driver to start when the timer is due
    ///   before the current driver wakes (or there is none).
    /// - Complexity: O(log n), n the timers waiting.
    mutating func arm(timeoutOf job: Int32, at deadline: Int64) -> (Token, Start?) {
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = Int32(slots.count)
            slots.append(.free)
        }
        let start = insert(Entry(timer: Timer(deadline: deadline, kind: .timeout, job: job), order: nextOrder, slot: slot))
        return (Token(slot: slot), start)
    }

    /// Adds the grace period of cancelled `job`, due at `deadline`.
    /// - Returns: a driver to start, as for ``arm(timeoutOf:at:)``.
    mutating func addGracePeriod(of job: Int32, at deadline: Int64) -> Start? {
        insert(Entry(timer: Timer(deadline: deadline, kind: .gracePeriod, job: job), order: nextOrder, slot: nil))
    }

    /// The attempt of `token` ended: stops its timeout.
    /// - Returns: true when the attempt ended in time; false when its timeout fired first.
    /// - Complexity: O(log n).
    @discardableResult
    mutating func stop(_ token: Token) -> Bool {
        let slot = Int(token.slot)
        let inTime: Bool
        switch slots[slot] {
        case .armed(let index):
            remove(at: index)
            inTime = true
        case .fired:
            inTime = false
        case .free:
            return true  // stopped twice: the first stop decided
        }
        slots[slot] = .free
        freeSlots.append(token.slot)
        return inTime
    }

    /// Driver `id` woke at `now`: takes the timers that are due, earliest first.
    mutating func wake(_ id: UInt64, now: Int64) -> Step {
        guard !isClosed, let current = driver, current.id == id else { return .stop }
        var due: [Timer] = []
        while let first = heap.first, first.timer.deadline <= now {
            if let slot = first.slot { slots[Int(slot)] = .fired }
            due.append(first.timer)
            remove(at: 0)
        }
        if !due.isEmpty {
            driver = (id, nil)
            return .fire(due)
        }
        guard let earliest else {
            driver = nil
            return .stop
        }
        driver = (id, earliest)
        return .sleep(until: earliest)
    }

    /// True while driver `id` is the one that should run.
    func isCurrent(_ id: UInt64) -> Bool {
        !isClosed && driver?.id == id
    }

    /// The run ended: no driver runs any more. Timers still armed never fire.
    mutating func close() {
        isClosed = true
        driver = nil
    }

    // MARK: - Heap

    private mutating func insert(_ entry: Entry) -> Start? {
        nextOrder &+= 1
        heap.append(entry)
        siftUp(heap.count - 1)
        guard !isClosed else { return nil }
        if let current = driver {
            // A driver that is firing looks at the heap again; one that sleeps until this
            // deadline or before it will find the timer when it wakes.
            guard let wakesAt = current.wakesAt, entry.timer.deadline < wakesAt else { return nil }
        }
        driversStarted &+= 1
        driver = (driversStarted, entry.timer.deadline)
        return Start(id: driversStarted, wakesAt: entry.timer.deadline)
    }

    private mutating func remove(at index: Int) {
        let last = heap.count - 1
        if index != last {
            heap.swapAt(index, last)
        }
        heap.removeLast()
        guard index < heap.count else { return }
        place(index)
        siftDown(index)
        siftUp(index)
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard heap[index].isBefore(heap[parent]) else { break }
            heap.swapAt(index, parent)
            place(index)
            index = parent
        }
        place(index)
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        while true {
            let left = 2 * index + 1
            guard left < heap.count else { break }
            let right = left + 1
            let child = right < heap.count && heap[right].isBefore(heap[left]) ? right : left
            guard heap[child].isBefore(heap[index]) else { break }
            heap.swapAt(index, child)
            place(index)
            index = child
        }
        place(index)
    }

    /// Records where the entry at `index` now is.
    private mutating func place(_ index: Int) {
        if let slot = heap[index].slot { slots[Int(slot)] = .armed(index) }
    }
}
