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

/// The time left to a poller, counting at most 100 ms for each poll.
private struct PollBudget {
    private var left: Duration
    private var last = ContinuousClock.now

    init(_ limit: Duration) { left = limit }

    var remains: Bool { left > .zero }

    mutating func poll() async {
        try? await Task.sleep(for: .milliseconds(10))
        let now = ContinuousClock.now
        left -= min(now - last, .milliseconds(100))
        last = now
    }
}
