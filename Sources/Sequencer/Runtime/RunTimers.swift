/// The timers of one run, earliest first: the watches of workers' attempts' timeouts and each
/// cancelled job's grace period, with the bookkeeping of the one task that sleeps until the
/// earliest.
///
/// A value-type state machine, like ``SchedulerState``: it knows nothing of tasks or clocks.
/// ``RunCore`` calls it under its own lock (not the scheduler's) and starts a driver task when
/// a call says so.
///
/// An attempt's timeout is not a timer of its own: its worker's ``AttemptTimer`` keeps its
/// deadline, and a watch here wakes it when one may be due. A worker whose attempts have like
/// timeouts adds a watch about once per timeout, not once per attempt, so the heap holds about
/// as many timers as there are workers.
///
/// ```swift
/// var timers = RunTimers()
/// let start = timers.watch(probe, at: 5_000)  // start: a driver until 5_000
/// timers.wake(start!.id, now: 5_000)          // .fire([the watch of `probe`])
/// ```
struct RunTimers {
    enum Kind: UInt8, Sendable {
        /// A watch of a worker's attempts' timeouts (see ``AttemptTimer``).
        case watch
        /// The grace period of a cancelled job: abandon it if its body has not returned.
        case gracePeriod
    }

    /// A timer that fired: when it was due, what it is for, and for which job (a grace period)
    /// or worker (a watch).
    struct Timer: Equatable, Sendable {
        let deadline: Int64
        let kind: Kind
        let job: Int32
        let probe: WorkerProbe?

        init(deadline: Int64, kind: Kind, job: Int32 = -1, probe: WorkerProbe? = nil) {
            self.deadline = deadline
            self.kind = kind
            self.job = job
            self.probe = probe
        }

        static func == (a: Timer, b: Timer) -> Bool {
            a.deadline == b.deadline && a.kind == b.kind && a.job == b.job && a.probe === b.probe
        }
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
        /// Breaks ties between equal deadlines: the timer added first fires first.
        let order: UInt64

        func isBefore(_ other: Entry) -> Bool {
            timer.deadline != other.timer.deadline ? timer.deadline < other.timer.deadline : order < other.order
        }
    }

    /// A binary min-heap by (deadline, order).
    private var heap: [Entry] = []
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
    /// The earliest deadline that waits.
    var earliest: Int64? { heap.first?.timer.deadline }

    /// Adds a watch of the attempts of the worker of `probe`, due at `deadline`.
    /// - Returns: a driver to start when the watch is due before the current driver wakes (or
    ///   there is none).
    /// - Complexity: O(log n), n the timers waiting.
    mutating func watch(_ probe: WorkerProbe, at deadline: Int64) -> Start? {
        insert(Entry(timer: Timer(deadline: deadline, kind: .watch, probe: probe), order: nextOrder))
    }

    /// Adds the grace period of cancelled `job`, due at `deadline`.
    /// - Returns: a driver to start, as for ``watch(_:at:)``.
    mutating func addGracePeriod(of job: Int32, at deadline: Int64) -> Start? {
        insert(Entry(timer: Timer(deadline: deadline, kind: .gracePeriod, job: job), order: nextOrder))
    }

    /// Driver `id` woke at `now`: takes the timers that are due, earliest first.
    mutating func wake(_ id: UInt64, now: Int64) -> Step {
        guard !isClosed, let current = driver, current.id == id else { return .stop }
        var due: [Timer] = []
        while let first = heap.first, first.timer.deadline <= now {
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
        siftDown(index)
        siftUp(index)
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard heap[index].isBefore(heap[parent]) else { break }
            heap.swapAt(index, parent)
            index = parent
        }
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
            index = child
        }
    }
}
