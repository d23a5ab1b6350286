import Synchronization

/// What a worker tells the run about the job it runs, without taking the lock: read only when
/// its job is about to be abandoned, to know whether its body began, when, and how many
/// attempts it made.
final class WorkerProbe: Sendable {
    private let job = Atomic<Int32>(-1)
    private let start = Atomic<Int64>(-1)
    private let attempts = Atomic<Int>(0)
    private let children = Atomic<Bool>(false)

    /// The worker began running `job`'s body.
    func started(_ job: Int32, at time: Int64) {
        start.store(time, ordering: .relaxed)
        attempts.store(1, ordering: .relaxed)
        self.job.store(job, ordering: .releasing)
    }

    func attempting(_ attempt: Int) { attempts.store(attempt, ordering: .relaxed) }

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
