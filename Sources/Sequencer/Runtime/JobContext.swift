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
    let core: RunCore

    /// Which attempt this is: 1 the first time, 2 on the first retry.
    public let attempt: Int

    init(job: Int32, attempt: Int, core: RunCore) {
        self.job = job
        self.attempt = attempt
        self.core = core
    }

    /// The job's ID.
    public var id: JobID { core.plan.ids[Int(job)] }

    /// The priority the job runs at: its own, or higher when a higher-priority job needs it.
    public var priority: Priority { core.plan.priority(of: Int(job)) }

    /// Time since the run started, on the run's clock.
    public var elapsed: Duration { .nanoseconds(core.time.now()) }

    /// The result of one of this job's needs.
    /// - Throws: ``WorkflowError`` `.notANeed` when `handle` is not one of this job's needs
    ///   (only needs are sure to have finished).
    public func value<T: Sendable>(of handle: JobHandle<T>) async throws -> T {
        guard let need = core.plan.job(for: handle) else {
            throw WorkflowError(code: .unknownNeed, message: "job '\(id)' reads the value of '\(handle.id)', which is not a job in this run", jobs: [id, handle.id])
        }
        let value = try core.value(of: need, for: job)
        if T.self == Void.self, let void = () as? T { return void }
        guard let typed = value as? T else {
            throw WorkflowError(code: .notANeed, message: "job '\(handle.id)' has no value of type \(T.self) for '\(id)'", jobs: [id, handle.id])
        }
        return typed
    }

    /// True when the job, or its run, was cancelled or timed out. Bodies that loop should check it.
    public var isCancelled: Bool { Task.isCancelled }

    /// Throws `CancellationError` when the job was cancelled.
    public func checkCancellation() throws { try Task.checkCancellation() }
}
