/// A workflow being run. Returned at once by ``Workflow/start(_:)``; its jobs are already starting.
///
/// ```swift
/// let run = try workflow.start(RunOptions(deadline: .seconds(30)))
/// Task { for await snapshot in run.snapshots(every: .milliseconds(16)) { show(snapshot) } }
/// let report = await run.report()
/// ```
///
/// A `Run` keeps its jobs' bodies, and what they captured, for as long as it is held: an
/// object whose jobs call it should keep the ``RunReport``, which keeps no bodies, rather than
/// the `Run` once it has ended. (A child job's body goes as soon as the child ends.)
public final class Run: Sendable {
    let core: RunCore

    init(core: RunCore) { self.core = core }

    /// Cancels the run: jobs that have not started never start, and running jobs are cancelled
    /// (through Swift task cancellation; they stop when their body checks for it, or are
    /// abandoned after ``RunOptions/gracePeriod``).
    public func cancel() {
        core.cancel(nil)
    }

    /// Cancels one job, and its children. If it has not started it never will; if it is running
    /// its body is cancelled (and abandoned after ``RunOptions/gracePeriod`` if it ignores that).
    /// Jobs that need it are skipped. Unknown IDs and finished jobs are ignored. A child's ID
    /// (`parent/name`) works too.
    public func cancel(_ id: JobID) {
        guard let job = core.state.withLock({ $0.scheduler.job(id) }) else { return }
        core.cancel(job)
    }

    /// Waits for the run to end and returns what happened. Never throws.
    public func report() async -> RunReport { await core.report() }

    /// The run's state now.
    public var snapshot: RunSnapshot { core.snapshot() }

    /// The run's state, at most once per `interval` on the run's clock, however many jobs finish
    /// in between. The first snapshot comes at once; the last (with `isFinished` true) comes as
    /// soon as the run ends, and then the stream finishes. Snapshots that would repeat the
    /// previous one are not sent.
    public func snapshots(every interval: Duration) -> AsyncStream<RunSnapshot> {
        core.snapshots(every: interval)
    }
}

extension Workflow {
    /// Validates the workflow and starts running it. Returns at once; jobs begin in the background.
    ///
    /// ```swift
    /// let report = try await workflow.start(RunOptions(maxConcurrency: 4)).report()
    /// ```
    /// - Throws: ``WorkflowError`` when the workflow is invalid; then nothing runs.
    /// - Complexity: O(jobs + needs) before returning.
    public func start(_ options: RunOptions = RunOptions()) throws -> Run {
        let log = options.recorder.map { _ in RunLog() }
        let core = RunCore(plan: try Plan(self, recorder: options.recorder, log: log), options: options, log: log)
        core.begin()
        return Run(core: core)
    }
}
