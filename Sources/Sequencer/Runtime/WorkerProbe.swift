import Synchronization

/// What a worker tells the run about the job it runs, without taking the lock: read only when
/// its job is about to be abandoned, to know whether its body began, when, and how many
/// attempts it made, and how the jobs of its batch before it ended.
final class WorkerProbe: Sendable {
    private let job = Atomic<Int32>(-1)
    private let start = Atomic<Int64>(-1)
    private let attempts = Atomic<Int>(0)
    private let children = Atomic<Bool>(false)
    private let touchedSum = Atomic<UInt>(0)
    /// The ends of the jobs of its batch it ran and has not reported. Behind a lock of its own,
    /// which only its worker takes, except when the run abandons its job. `Locked`, not `Mutex`,
    /// so that the sanitizer's build sees the lock.
    private let ended = Locked<[(job: Int32, completion: Completion)]>([])
    /// The timeout of its attempt under way. Behind a lock of its own, which its worker takes as
    /// a timed attempt begins and ends, and a watch of the run's timers as it wakes.
    private let timer = Locked(AttemptTimer())

    /// The worker's job of a batch ended; it goes on with the next one.
    func ended(_ job: Int32, _ completion: Completion) {
        ended.withLock { $0.append((job, completion)) }
    }

    /// The ends to report, taken by the worker as it reports them.
    func takeEnded() -> [(job: Int32, completion: Completion)] {
        ended.withLock { ended in
            var taken: [(job: Int32, completion: Completion)] = []
            swap(&taken, &ended)  // no copy of what is handed over
            return taken
        }
    }

    /// The ends not reported yet, for the run abandoning the worker's job.
    var endedSoFar: [(job: Int32, completion: Completion)] { ended.withLock { $0 } }

    /// The worker began running `job`'s body.
    func started(_ job: Int32, at time: Int64) {
        start.store(time, ordering: .relaxed)
        attempts.store(1, ordering: .relaxed)
        self.job.store(job, ordering: .releasing)
    }

    /// An attempt of `job` with a timeout began, due at `deadline`: when to add a watch of this
    /// worker to the run's timers, or nil when one wakes by then (see ``AttemptTimer``).
    func beginTimed(_ job: Int32, dueAt deadline: Int64) -> Int64? {
        timer.withLock { $0.begin(job, dueAt: deadline) }
    }

    /// The timed attempt ended: false when it timed out first.
    func endTimed() -> Bool {
        timer.withLock { $0.end() }
    }

    /// A watch of this worker woke at `now`.
    func wakeTimer(now: Int64) -> AttemptTimer.Wake {
        timer.withLock { $0.wake(now: now) }
    }

    func attempting(_ attempt: Int) { attempts.store(attempt, ordering: .relaxed) }

    /// Keeps the sum of a read-ahead (``Plan/touchBodies(_:)``), so that its reads are done.
    func touched(_ sum: UInt) { touchedSum.store(sum, ordering: .relaxed) }

    /// The worker's job added a child: the attempt waits for its children before it ends.
    func addedChild() { children.store(true, ordering: .relaxed) }

    /// Whether the job added a child since the last call. Read by the worker itself after an
    /// attempt (its body's adds happened before it returned).
    func takeAddedChildren() -> Bool {
        children.load(ordering: .relaxed) && children.exchange(false, ordering: .relaxed)
    }

    /// When the worker began `job`'s body and its attempt now, or nil when it has not begun it.
    func progress(of job: Int32) -> (startedAt: Int64, attempt: Int)? {
        guard self.job.load(ordering: .acquiring) == job else { return nil }
        return (start.load(ordering: .relaxed), attempts.load(ordering: .relaxed))
    }
}
