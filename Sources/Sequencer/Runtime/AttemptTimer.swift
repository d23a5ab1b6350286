/// The timeout of one worker's attempt under way, and the watches that wake it: a value-type
/// state machine, kept by the worker's ``WorkerProbe`` behind its lock.
///
/// An attempt arms no timer of its own. Its worker records its deadline here as it begins
/// (``begin(_:dueAt:)``) and takes it back as it ends (``end()``), without the run's timer lock;
/// only when no watch of this worker in ``RunTimers`` wakes by the deadline does it add one. A
/// watch that wakes (``wake(now:)``) times the attempt out if its deadline has passed, and else
/// comes back at the deadline of the attempt then under way. Attempts with like timeouts, one
/// after another, so add about one watch per timeout's length, not one per attempt: a flat run of
/// a million jobs with a timeout each spent a fifth of its time on the timer lock's two trips per
/// job when each attempt armed and stopped a timer.
///
/// Whether an attempt timed out is decided here, once: ``end()`` before a watch finds it due
/// means in time; a watch that finds it due first makes ``end()`` return false.
///
/// Invariant: while an attempt is timed, `watchedUntil` is nil or no later than its deadline,
/// and a watch in the run's timers wakes at `watchedUntil`.
struct AttemptTimer: Sendable {
    /// The job of the attempt under way, or of the last one.
    private(set) var job: Int32 = -1
    /// When the attempt under way is due; nil between attempts, or for one with no timeout.
    private var deadline: Int64?
    /// When the next watch of this worker wakes; nil when no watch is waiting.
    private var watchedUntil: Int64?
    /// A watch found the attempt under way due.
    private var fired = false

    /// What a watch does when it wakes.
    enum Wake: Equatable, Sendable {
        /// Time out the attempt of `job`, due at `at`.
        case timeOut(job: Int32, at: Int64)
        /// Add a watch at `at`: the attempt under way is due then.
        case watchAgain(at: Int64)
        /// Nothing: no attempt is timed, or another watch wakes by its deadline.
        case none
    }

    /// An attempt of `job` with a timeout begins, due at `deadline`.
    /// - Returns: when to add a watch, or nil when one wakes by then.
    mutating func begin(_ job: Int32, dueAt deadline: Int64) -> Int64? {
        self.job = job
        self.deadline = deadline
        fired = false
        if let watchedUntil, watchedUntil <= deadline { return nil }
        watchedUntil = deadline
        return deadline
    }

    /// The timed attempt ended. Returns true when it ended in time, false when a watch found it
    /// due first.
    mutating func end() -> Bool {
        deadline = nil
        return !fired
    }

    /// A watch of this worker woke at `now`.
    mutating func wake(now: Int64) -> Wake {
        if let watchedUntil, watchedUntil <= now { self.watchedUntil = nil }
        guard let deadline, !fired else { return .none }
        if deadline <= now {
            fired = true
            return .timeOut(job: job, at: deadline)
        }
        // A watch still waiting wakes by the deadline (see the invariant): it looks again then.
        if watchedUntil != nil { return .none }
        watchedUntil = deadline
        return .watchAgain(at: deadline)
    }
}
