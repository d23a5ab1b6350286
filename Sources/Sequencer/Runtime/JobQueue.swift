/// A run that stays open: jobs are added from outside whenever you like, as with
/// `OperationQueue.addOperation`, with every option of ``Workflow/add(_:needs:lane:priority:timeout:retry:coalesce:_:)``.
///
/// ```swift
/// let queue = JobQueue(RunOptions(maxConcurrency: 4))        // starts at once, stays open
/// queue.lane("network", width: 2)
/// let fetch = try queue.add("fetch-7", lane: "network", retry: .exponential(attempts: 5),
///                           coalesce: "fetch-7") { _ in try await api.fetch(7) }
/// try queue.add("apply-7", needs: [fetch.id]) { ctx in try await store.apply(ctx.value(of: fetch)) }
/// let value = try await queue.value(of: fetch)               // waits for that job
/// queue.cancel("apply-7")                                    // a job, queued or running
/// queue.close()                                              // no more jobs; it ends when all have
/// let report = await queue.report()
/// ```
///
/// A queue differs from a ``Run`` in four ways:
/// - It ends only once ``close()`` was called and every job in it has ended.
/// - It keeps going after a failure: a job that fails skips only the jobs that need it
///   (``RunOptions/keepGoing`` is ignored).
/// - It forgets what no one can ask for any more, so its memory stays flat however long it
///   runs. It keeps every job that has not ended; a finished job while a job that needs it has
///   not ended, while a caller waits in ``value(of:)``, or while it leads a coalescing key that
///   unfinished jobs share; and otherwise the newest `keepFinished` finished jobs. Jobs are
///   forgotten oldest first: a job that runs for hours keeps the jobs added after it until it
///   ends. A forgotten job can no longer be named in `needs` or found in the report, whose
///   counts still cover every job the queue ran; its handle still reads its result with
///   ``value(of:)``, as a `Task` keeps its value while it is held.
/// - A coalescing key is shared only by jobs that overlap: once no unfinished job has the key,
///   the key is forgotten and the next job with it runs the work again.
///
/// A job's body, and what it captured, goes as soon as no worker will run it: once the job
/// ended (or joined a coalesced job), even while the job itself is kept. An object that owns a
/// queue whose jobs call its methods goes when it is let go, once those jobs have ended.
///
/// ``RunOptions/recorder`` is not used: a queue is not journaled.
public final class JobQueue: Sendable {
    let core: RunCore

    /// Starts a queue, with no jobs.
    /// - Parameters:
    ///   - options: as for a run; `keepGoing` and `recorder` are ignored.
    ///   - keepFinished: how many finished jobs to keep beyond those still needed (see above).
    public init(_ options: RunOptions = RunOptions(), keepFinished: Int = 1_000) {
        var options = options
        options.keepGoing = true
        options.recorder = nil
        core = RunCore(plan: Plan.empty, options: options, keepFinished: max(0, keepFinished))
        core.begin()
    }

    /// Closes the queue when the last reference to it goes: the jobs in it still run.
    deinit { core.step { $0.scheduler.close() } }

    /// Declares a lane: a named limit on how many of its jobs run at once (see
    /// ``Workflow/lane(_:width:ordered:)``). Declaring it again changes its width for the slots it
    /// gives from then on. A width below 1 makes adding a job to the lane throw.
    public func lane(_ id: String, width: Int, ordered: Bool = true) {
        core.step { $0.scheduler.declareLane(id, width: width, ordered: ordered) }
    }

    /// Adds a job; it starts as soon as its needs have succeeded and a worker and its lane have room.
    ///
    /// - Parameters: as for ``Workflow/add(_:needs:lane:priority:timeout:retry:coalesce:_:)``;
    ///   `needs` name jobs added before, finished or not (a need that failed skips the job at
    ///   once). A job of higher priority raises the needs that have not started.
    /// - Returns: a handle for ``value(of:)`` and for ``JobContext/value(of:)``.
    /// - Throws: ``WorkflowError`` when the queue is closed, when a job with the same ID has not
    ///   ended (the ID of an ended job may be used again: it then names the new job), for an
    ///   unknown or forgotten need, an undeclared lane or an invalid option.
    @discardableResult
    public func add<T: Sendable>(
        _ id: JobID,
        needs: [JobID] = [],
        lane: String? = nil,
        priority: Priority = .utility,
        timeout: Duration? = nil,
        retry: RetryPolicy = .none,
        coalesce: String? = nil,
        _ body: @escaping @Sendable (JobContext) async throws -> T
    ) throws -> JobHandle<T> {
        try add(id, JobRequest(needs: needs, lane: lane, priority: priority, timeout: timeout, retry: retry, coalesce: coalesce, body))
    }

    /// Adds a job that returns nothing: the same as the generic
    /// ``add(_:needs:lane:priority:timeout:retry:coalesce:_:)``, without wrapping the closure.
    @discardableResult
    public func add(
        _ id: JobID,
        needs: [JobID] = [],
        lane: String? = nil,
        priority: Priority = .utility,
        timeout: Duration? = nil,
        retry: RetryPolicy = .none,
        coalesce: String? = nil,
        _ body: @escaping @Sendable (JobContext) async throws -> Void
    ) throws -> JobHandle<Void> {
        try add(id, JobRequest(needs: needs, lane: lane, priority: priority, timeout: timeout, retry: retry, coalesce: coalesce, body))
    }

    private func add<T>(_ id: JobID, _ job: JobRequest) throws -> JobHandle<T> {
        let request = RunCore.Scheduler.ChildRequest(name: id, id: id, prefix: "", job: job)
        let ticket = JobTicket()
        var number: Int32 = 0
        try core.step { state in
            let (added, actions) = try state.scheduler.add(request, ticket: ticket)
            number = added
            return actions
        }
        return JobHandle(id: id, index: number, ticket: ticket)
    }

    /// Waits for the handle's job to end and returns its result. A handle from ``add(_:needs:lane:priority:timeout:retry:coalesce:_:)``
    /// reads its job's result even after the queue has forgotten the job: the result is kept
    /// while a handle to it exists.
    /// - Throws: its ``JobError`` when it did not succeed; ``WorkflowError`` `.unknownNeed` when
    ///   the queue has no such job (a handle from elsewhere, for a job never added or forgotten).
    public func value<T: Sendable>(of handle: JobHandle<T>) async throws -> T {
        // Found and watched in one step: a queue may forget a job between two.
        var found: Int32?
        var result: Result<any Sendable, any Error>?
        _ = await withCheckedContinuation { continuation in
            core.step { state in
                let scheduler = state.scheduler
                if scheduler.jobs.contains(handle.index), scheduler.id(of: handle.index) == handle.id {
                    found = handle.index
                } else if let ticket = handle.ticket {
                    // Ended and forgotten: its ticket was filled in the step that ended it.
                    result = ticket.result
                } else {
                    found = scheduler.job(handle.id)
                }
                guard let job = found else {
                    var actions = RunCore.Scheduler.Actions()
                    actions.resume.append(continuation)
                    return actions
                }
                return state.scheduler.watch(job, continuation)
            }
        }
        if let job = found {
            core.step { state in
                result = state.scheduler.result(of: job)
                return state.scheduler.doneReading(job)
            }
        }
        guard let result else {
            throw WorkflowError(
                code: .unknownNeed,
                message: "the queue has no job '\(handle.id)': it was never added, or it ended and was forgotten (see keepFinished)",
                jobs: [handle.id])
        }
        let value = try result.get()
        if T.self == Void.self, let void = () as? T { return void }
        guard let typed = value as? T else {
            throw WorkflowError(code: .notANeed, message: "job '\(handle.id)' has no value of type \(T.self)", jobs: [handle.id])
        }
        return typed
    }

    /// The outcome of the job `id` once it has ended; nil while it has not, or when the queue
    /// has no such job (never added, or forgotten).
    public func outcome(of id: JobID) -> JobOutcome? {
        core.state.withLock { state in
            guard let job = state.scheduler.job(id), state.scheduler.jobs[job].phase.isTerminal else { return nil }
            return state.scheduler.outcome(of: job)
        }
    }

    /// Cancels one job, and its children: if it has not started it never will, and the jobs
    /// that need it are skipped; if it is running its body is cancelled. Unknown IDs and
    /// finished jobs are ignored.
    public func cancel(_ id: JobID) {
        guard let job = core.state.withLock({ $0.scheduler.job(id) }) else { return }
        core.cancel(job)
    }

    /// Cancels every job and closes the queue: jobs that have not started never start, running
    /// jobs are cancelled, and jobs added from now on are refused.
    public func cancel() {
        core.step { $0.scheduler.close() }
        core.cancel(nil)
    }

    /// No more jobs: adding one throws from now on. The queue ends when every job in it has.
    public func close() {
        core.step { $0.scheduler.close() }
    }

    /// Waits for the queue to be closed and every job in it to end, and returns what happened:
    /// the counts of every job it ran, and the outcomes of the jobs it still keeps.
    public func report() async -> RunReport { await core.report() }

    /// The queue's state now.
    public var snapshot: RunSnapshot { core.snapshot() }

    /// The queue's state, at most once per `interval` (see ``Run/snapshots(every:)``).
    public func snapshots(every interval: Duration) -> AsyncStream<RunSnapshot> {
        core.snapshots(every: interval)
    }
}
