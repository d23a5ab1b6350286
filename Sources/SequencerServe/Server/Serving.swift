import Hummingbird
import Logging
import ServiceLifecycle

/// Runs `app` until the calling task is cancelled, then shuts it down gracefully: it stops
/// listening, serves the connections already accepted, and is cancelled only after `grace`
/// (an event stream never ends by itself).
///
/// Cancelling the server's own task instead would drop a connection accepted but not yet
/// served, and SwiftNIO traps on that ("Deinited NIOAsyncWriter without calling finish()").
/// So the server runs in a task of its own, which the caller's cancel does not reach.
func serveUntilCancelled(_ app: some Service, logger: Logger, grace: Duration = .seconds(2)) async throws {
    var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [], logger: logger)
    configuration.maximumGracefulShutdownDuration = grace
    let group = ServiceGroup(configuration: configuration)
    let serving = Task { try await group.run() }
    try await withTaskCancellationHandler {
        try await serving.value
    } onCancel: {
        Task { await group.triggerGracefulShutdown() }
    }
    try Task.checkCancellation()
}
