import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Runs `app` until the calling task is cancelled, then shuts it down gracefully: it stops
/// listening, serves the connections already accepted, closes those left idle, and returns
/// when the last one is closed. The web page's event streams end at that point too
/// (``Server/events(id:)``), so no connection is held open by the server itself.
///
/// The server is never cancelled. Cancelling it drops the connections it accepted but had not
/// yet handed to a handler, and SwiftNIO traps on that ("Deinited NIOAsyncWriter without
/// calling finish()", swift-nio #3481). So it runs in a task of its own, which the caller's
/// cancel does not reach, and its group has no time limit for the graceful shutdown: a limit
/// that ran out under load (two seconds, while clients were being accepted on two busy
/// cores) cancelled the server and crashed the process, as in CI run 78.
/// A connection with no request under way, or a request that stopped arriving, is closed after
/// this long: a client that stalls mid-request would otherwise hold up a cancelled server's
/// end. An answer being written (an event stream) is never cut.
let serverIdleTimeout = TimeAmount.seconds(60)

func serveUntilCancelled(_ app: some Service, logger: Logger) async throws {
    let configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [], logger: logger)
    let group = ServiceGroup(configuration: configuration)
    let serving = Task { try await group.run() }
    try await withTaskCancellationHandler {
        try await serving.value
    } onCancel: {
        Task { await group.triggerGracefulShutdown() }
    }
    try Task.checkCancellation()
}
