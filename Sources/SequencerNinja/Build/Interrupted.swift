import Sequencer

/// Ctrl-C during a build: cancels the build's run, whether it has started yet or not. Its
/// commands get SIGTERM (the process runner's way of stopping them), and the build stops as
/// "interrupted by user".
final class Interrupted: Sendable {
    private let state = Locked<(run: Run?, cancelled: Bool)>((nil, false))

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        let run = state.withLock { state in
            state.cancelled = true
            return state.run
        }
        run?.cancel()
    }

    /// The run to cancel; cancelled at once if Ctrl-C came before it started.
    func attach(_ run: Run) {
        let cancelled = state.withLock { state in
            state.run = run
            return state.cancelled
        }
        if cancelled { run.cancel() }
    }
}
