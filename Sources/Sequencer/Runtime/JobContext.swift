/// What a job's body knows about itself and its run. Passed to every body.
///
/// ```swift
/// try workflow.add("whats-new", needs: [config.id]) { ctx in
///     let config = try await ctx.value(of: config)
///     try ctx.checkCancellation()
///     return render(config)
/// }
/// ```
public struct JobContext: Sendable {
    let job: Int32
    /// The slot of the worker running the job, and what it tells the run without the lock.
    let slot: Int
    let probe: WorkerProbe
    let core: RunCore

    /// Which attempt this is: 1 the first time, 2 on the first retry.
    public let attempt: Int

    init(job: Int32, attempt: Int, slot: Int, probe: WorkerProbe, core: RunCore) {
        self.job = job
        self.slot = slot
        self.probe = probe
        self.attempt = attempt
        self.core = core
    }

    /// The job's ID.
    public var id: JobID {
        core.plan.contains(job) ? core.plan.ids[Int(job)] : core.state.withLock { $0.scheduler.id(of: job) }
    }

    /// The priority the job runs at: its own, or higher when a higher-priority job needs it.
    public var priority: Priority {
        core.plan.contains(job) ? core.plan.priority(of: Int(job)) : core.state.withLock { $0.scheduler.jobs[job].priority }
    }

    /// Time since the run started, on the run's clock.
    public var elapsed: Duration { .nanoseconds(core.time.now()) }

    /// The result of one of this job's needs, or of one of its children (waiting for the child
    /// to end, without holding a worker slot).
    /// - Throws: ``WorkflowError`` `.notANeed` when `handle` is neither one of this job's needs
    ///   (only needs are sure to have finished) nor one of its children; for a child that did
    ///   not succeed, its ``JobError``.
    public func value<T: Sendable>(of handle: JobHandle<T>) async throws -> T {
        let value = try await core.value(of: handle, for: job, slot: slot)
        if T.self == Void.self, let void = () as? T { return void }
        guard let typed = value as? T else {
            throw WorkflowError(code: .notANeed, message: "job '\(handle.id)' has no value of type \(T.self) for '\(id)'", jobs: [id, handle.id])
        }
        return typed
    }

    // MARK: - Children

    /// Adds a child job to the run while this job runs: a dynamic group, like a dispatch group,
    /// of any size.
    ///
    /// ```swift
    /// try workflow.add("attachments") { ctx in
    ///     for url in try await ctx.value(of: payload).attachments {
    ///         try ctx.addChild("download-\(url.lastPathComponent)", lane: "network") { _ in try await download(url) }
    ///     }
    ///     return try await ctx.waitForChildren().filter { $0.status == .succeeded }.count
    /// }
    /// ```
    /// A child is a job of the run: it appears in the report (with ``JobOutcome/parent``),
    /// counts against `maxConcurrency` and its lane's width, and has the same options as
    /// ``Workflow/add(_:needs:lane:priority:timeout:retry:coalesce:_:)``. It starts once its
    /// needs, jobs already in the run, have succeeded. Its priority is at least its parent's.
    ///
    /// The child's ID is this job's ID, a slash and `name` (`attachments/download-1`); on a
    /// retry, the attempt number follows the parent's ID (`attachments#2/download-1`). `needs`
    /// may name siblings by `name` or any job by its full ID, but not this job or an ancestor,
    /// nor a job that waits for one of them (it needs one, directly or not, or has a child or
    /// joined a leader that does): the child could never start.
    ///
    /// A job ends only after all its children have: when its body returns, the job waits for
    /// them (without holding a worker slot). When the job fails, times out or is cancelled, its
    /// children that have not ended are cancelled. A child whose coalescing key matches a job
    /// that is running or finished shares that job's result instead of running again.
    /// - Returns: a handle to read the child's result with ``value(of:)``.
    /// - Throws: ``WorkflowError`` for a duplicate ID, an unknown need or lane, a need that waits
    ///   for this job or an ancestor (`invalidOption`, naming the path), an invalid option, a
    ///   coalescing key that this job or an ancestor leads (the child would wait for its own
    ///   result), or when this job was cancelled or has ended.
    @discardableResult
    public func addChild<T: Sendable>(
        _ name: JobID,
        needs: [JobID] = [],
        lane: String? = nil,
        priority: Priority = .utility,
        timeout: Duration? = nil,
        retry: RetryPolicy = .none,
        coalesce: String? = nil,
        _ body: @escaping @Sendable (JobContext) async throws -> T
    ) throws -> JobHandle<T> {
        try addChild(name, JobRequest(needs: needs, lane: lane, priority: priority, timeout: timeout, retry: retry, coalesce: coalesce, body))
    }

    /// Adds a child job that returns nothing: the same as the generic
    /// ``addChild(_:needs:lane:priority:timeout:retry:coalesce:_:)``, without wrapping the closure.
    @discardableResult
    public func addChild(
        _ name: JobID,
        needs: [JobID] = [],
        lane: String? = nil,
        priority: Priority = .utility,
        timeout: Duration? = nil,
        retry: RetryPolicy = .none,
        coalesce: String? = nil,
        _ body: @escaping @Sendable (JobContext) async throws -> Void
    ) throws -> JobHandle<Void> {
        try addChild(name, JobRequest(needs: needs, lane: lane, priority: priority, timeout: timeout, retry: retry, coalesce: coalesce, body))
    }

    private func addChild<T>(_ name: JobID, _ request: JobRequest) throws -> JobHandle<T> {
        // The ID is built before taking the run's lock.
        let parentID = id
        let prefix = attempt > 1 ? "\(parentID)#\(attempt)" : parentID.description
        let (child, id) = try core.addChild(.init(name: name, id: JobID("\(prefix)/\(name)"), prefix: prefix, job: request), to: job)
        probe.addedChild()
        return JobHandle(id: id, index: child)
    }

    /// Waits until every child this job has added so far has ended, without holding a worker
    /// slot or a lane slot, and returns their outcomes in the order they were added.
    /// - Throws: `CancellationError` when this job was cancelled meanwhile (its children were
    ///   cancelled with it).
    @discardableResult
    public func waitForChildren() async throws -> [JobOutcome] {
        await core.waitForChildren(of: job, target: nil, slot: slot)
        try Task.checkCancellation()
        return core.state.withLock { state in state.scheduler.children(of: job).map { state.scheduler.outcome(of: $0) } }
    }

    /// Marks the job as up to date: when its body returns, the job ends ``JobStatus/upToDate``
    /// instead of succeeded. Nothing else changes: its result is
    /// kept, and the jobs that need it run as after a success. A body calls it when it finds
    /// its work already done (its outputs are newer than its inputs, say) and returns early.
    public func markUpToDate() {
        core.state.withLock { _ = $0.scheduler.upToDate.insert(job) }
    }

    /// True when the job, or its run, was cancelled or timed out. Bodies that loop should check it.
    public var isCancelled: Bool { Task.isCancelled }

    /// Throws `CancellationError` when the job was cancelled.
    public func checkCancellation() throws { try Task.checkCancellation() }
}
