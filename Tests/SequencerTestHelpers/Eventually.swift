/// Polls `condition` every 10 ms until it holds or `limit` has passed: for what a test waits
/// on outside its own process (a child process, a file another program writes), where there is
/// nothing to await.
///
/// ```swift
/// #expect(await eventually { directory.exists("started") })
/// ```
///
/// - Parameters:
///   - limit: How long to wait at most.
///   - condition: Checked at once, then every 10 ms, and once more at the end.
/// - Returns: Whether it held.
public func eventually(within limit: Duration = .seconds(120), _ condition: () -> Bool) async -> Bool {
    let end = ContinuousClock.now + limit
    while ContinuousClock.now < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// ``eventually(within:_:)`` for a condition that must await (an HTTP request to a child
/// process), checked every 10 ms.
public func eventually(within limit: Duration = .seconds(120), _ condition: () async -> Bool) async -> Bool {
    let end = ContinuousClock.now + limit
    while ContinuousClock.now < end {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
