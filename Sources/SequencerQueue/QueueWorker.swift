public import ServiceLifecycle
public import Sequencer

/// A worker of a ``DurableQueue`` as a service of swift-service-lifecycle: a Hummingbird or
/// Vapor app runs it in its `ServiceGroup`, beside the HTTP server whose routes enqueue jobs.
///
/// ```swift
/// let queue = try await DurableQueue(store: .postgres(url: url))
/// queue.register("email") { (input: Email, _: JobContext) in try await mailer.send(input) }
/// let group = ServiceGroup(
///     services: [app, QueueWorker(queue: queue, maxConcurrency: 8, gracePeriod: .seconds(30))],
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// It works as ``DurableQueue/work(maxConcurrency:)`` does. On a graceful shutdown (SIGTERM, for
/// a group that listens for it) it drains: it claims no more jobs, gives back at once the jobs it
/// claimed ahead that have not started, and lets the running ones finish for up to
/// `gracePeriod`; those still running then are cancelled and released, to run again at once on
/// another worker, their attempts not counted (a body that ignores its cancellation is waited
/// for, as ``DurableQueue/drain(within:)`` says). `run()` returns once the last end is recorded.
/// Cancelling the service's task (the group's own deadline) releases the running jobs at once.
public struct QueueWorker: Service {
    public let queue: DurableQueue
    /// How many jobs run at once, at most.
    public let maxConcurrency: Int
    /// How long running jobs may take to finish once a graceful shutdown begins.
    public let gracePeriod: Duration

    public init(queue: DurableQueue, maxConcurrency: Int = RunOptions.activeProcessorCount, gracePeriod: Duration = .seconds(30)) {
        self.queue = queue
        self.maxConcurrency = maxConcurrency
        self.gracePeriod = gracePeriod
    }

    public func run() async throws {
        try await queue.work(maxConcurrency: maxConcurrency, drainingOnShutdownWithin: gracePeriod)
    }
}
