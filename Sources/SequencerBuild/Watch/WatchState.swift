/// The logic of `sequencer run --watch`, without threads, files or clocks: changes come in,
/// actions go out. Changes are collected until they have been quiet for `quiet` (a debounce);
/// then a run starts with them. A change during a run stops that run (once), and the next
/// run starts when the run has ended and the changes have been quiet again. A stop (Ctrl-C)
/// stops the run still going and ends the watch when it has ended.
///
/// ```swift
/// var state = WatchState<ContinuousClock.Instant>(quiet: .milliseconds(100))
/// state.start()                                   // .run([]): the first run, every job
/// state.runEnded(at: t)                           // .none: watching
/// state.changed(["/src/a.c"], at: t)              // .wake(at: t + 100ms)
/// state.wake(at: t + .milliseconds(100))          // .run(["/src/a.c"])
/// ```
package struct WatchState<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// What the driver does next.
    package enum Action: Equatable, Sendable {
        /// Nothing now.
        case none
        /// Call ``WatchState/wake(at:)`` at this instant (a later call replaces an earlier one).
        case wake(at: Instant)
        /// Start a run for these changed paths (none: the first run, of every job).
        case run(Set<String>)
        /// Stop the run still going; ``WatchState/runEnded(at:)`` follows when it has ended.
        case stopRun
        /// The watch is over.
        case finish
    }

    private enum Phase: Equatable {
        case idle
        case running(stopping: Bool)
        case finished
    }

    /// How long changes must be quiet before a run starts.
    package let quiet: Duration
    private var phase = Phase.idle
    private var finishing = false
    /// The changed paths not yet given to a run.
    private(set) package var pending: Set<String> = []
    /// When the last change came.
    private var lastChange: Instant?

    package init(quiet: Duration) {
        self.quiet = quiet
    }

    /// Whether a run is going.
    package var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    /// The first run, of every job.
    package mutating func start() -> Action {
        guard phase == .idle, !finishing else { return .none }
        phase = .running(stopping: false)
        return .run([])
    }

    /// Paths changed (already filtered: each one matters to some job or is the workflow file).
    package mutating func changed(_ paths: some Sequence<String>, at now: Instant) -> Action {
        guard !finishing, phase != .finished else { return .none }
        var any = false
        for path in paths {
            pending.insert(path)
            any = true
        }
        guard any else { return .none }
        lastChange = now  // every change puts the run off: the changes must be quiet
        switch phase {
        case .running(stopping: false):
            phase = .running(stopping: true)
            return .stopRun
        case .running(stopping: true), .finished:
            return .none
        case .idle:
            return .wake(at: now.advanced(by: quiet))
        }
    }

    /// The time asked for by ``Action/wake(at:)`` came (or any time: an early or late call is harmless).
    package mutating func wake(at now: Instant) -> Action {
        guard phase == .idle, !finishing, !pending.isEmpty, let lastChange else { return .none }
        let due = lastChange.advanced(by: quiet)
        guard now >= due else { return .wake(at: due) }
        let paths = pending
        pending = []
        self.lastChange = nil
        phase = .running(stopping: false)
        return .run(paths)
    }

    /// The run ended (it finished, failed, or was stopped).
    package mutating func runEnded(at now: Instant) -> Action {
        guard isRunning else { return .none }
        phase = .idle
        if finishing {
            phase = .finished
            return .finish
        }
        return wake(at: now)
    }

    /// Ctrl-C: stop the run still going, if any, then finish.
    package mutating func stop() -> Action {
        guard !finishing else { return .none }
        finishing = true
        switch phase {
        case .running(stopping: false):
            phase = .running(stopping: true)
            return .stopRun
        case .running(stopping: true):
            return .none
        case .idle:
            phase = .finished
            return .finish
        case .finished:
            return .none
        }
    }
}
