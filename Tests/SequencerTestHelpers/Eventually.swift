/// Polls `condition` every 10 ms until it holds or `limit` has passed: for what a test waits
/// on outside its own process (a child process, a file another program writes), where there is
/// nothing to await.
///
/// ```swift
/// #expect(await eventually { directory.exists("started") })
/// ```
///
/// Only the time the poller was given counts, at most 100 ms for each poll: while the whole
/// test process stalls (every thread of the shared pool blocked by other tests, for 90 s in a
/// CI run), the task the condition waits for does not run either, and a limit counted on the
/// clock ran out before it could.
///
/// - Parameters:
///   - limit: How long to wait at most, in the poller's own time.
///   - condition: Checked at once, then every 10 ms, and once more at the end.
/// - Returns: Whether it held.
public func eventually(within limit: Duration = .seconds(120), _ condition: () -> Bool) async -> Bool {
    var budget = PollBudget(limit)
    while budget.remains {
        if condition() { return true }
        await budget.poll()
    }
    return condition()
}

/// ``eventually(within:_:)`` for a condition that must await (an HTTP request to a child
/// process), checked every 10 ms.
public func eventually(within limit: Duration = .seconds(120), _ condition: () async -> Bool) async -> Bool {
    var budget = PollBudget(limit)
    while budget.remains {
        if await condition() { return true }
        await budget.poll()
    }
    return await condition()
}

/// The time left to a poller, counting at most 100 ms for each poll: a poller the shared pool
/// starves (every test of the suite started at once, on two cores) is not failed for the time
/// it was not given.
public struct PollBudget {
    private var left: Duration
    private var last = ContinuousClock.now
    private let interval: Duration

    public init(_ limit: Duration, every interval: Duration = .milliseconds(10)) {
        left = limit
        self.interval = interval
    }

    public var remains: Bool { left > .zero }

    /// Sleeps for the interval, then counts the time since the last poll, at most 100 ms.
    public mutating func poll() async {
        try? await Task.sleep(for: interval)
        let now = ContinuousClock.now
        left -= min(now - last, .milliseconds(100))
        last = now
    }
}
