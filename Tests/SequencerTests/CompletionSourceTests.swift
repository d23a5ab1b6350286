@testable import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

private struct Broken: Error, Equatable {
    var code = 0
}

/// Yields until `source` has at least `count` queued waiters; false if the test was cancelled first.
private func waiters<V>(_ source: CompletionSource<V>, atLeast count: Int) async -> Bool {
    while source.waiterCount < count {
        if Task.isCancelled { return false }
        await Task.yield()
    }
    return true
}

/// Starts `count` tasks waiting for `source`, and returns once they all wait.
private func startWaiters<V>(_ source: CompletionSource<V>, count: Int) async throws -> [Task<V, any Error>] {
    let tasks = (0..<count).map { _ in Task { try await source.value() } }
    try #require(await waiters(source, atLeast: count), "the waiters never queued")
    return tasks
}

/// A callback API in the manner of CoreBluetooth: ``startReading(_:)`` stores the callback,
/// the test fires it with ``deliver(_:)``, and ``stop()`` is what a cancelled caller must call.
private final class FakeSensor: Sendable {
    private struct State {
        var callback: (@Sendable (String) -> Void)?
        var stops = 0
    }

    private let state = LockedValue(State())
    /// Opens when a callback is registered.
    let reading = Gate()

    func startReading(_ callback: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.callback = callback }
        reading.open()
    }

    /// Calls the stored callback, if any, outside the lock; true when there was one.
    @discardableResult
    func deliver(_ value: String) -> Bool {
        let callback = state.withLock { state in
            defer { state.callback = nil }
            return state.callback
        }
        callback?(value)
        return callback != nil
    }

    func stop() {
        state.withLock { $0.stops += 1; $0.callback = nil }
    }

    var stops: Int { state.value.stops }
}

@Suite(.suiteTimeLimit)
struct CompletionSourceTests {
    // MARK: Completing

    @Test func completingBeforeWaitingReturnsAtOnce() async throws {
        let source = CompletionSource<Int>()
        #expect(!source.isCompleted)
        #expect(source.complete(42))
        #expect(source.isCompleted)
        #expect(try await source.value() == 42)
        #expect(try await source.value() == 42, "a later waiter gets the same value")
    }

    @Test(arguments: [1, 2, 5])
    func completingAfterWaitingWakesEveryWaiter(count: Int) async throws {
        let source = CompletionSource<Int>()
        let tasks = try await startWaiters(source, count: count)
        #expect(!source.isCompleted)
        #expect(source.complete(7))
        for task in tasks { #expect(try await task.value == 7) }
        #expect(try await source.value() == 7)
        #expect(source.waiterCount == 0)
    }

    @Test(arguments: [false, true])
    func failingMakesEveryWaiterThrow(waitFirst: Bool) async throws {
        let source = CompletionSource<Int>()
        let tasks = waitFirst ? try await startWaiters(source, count: 2) : []
        #expect(source.fail(Broken(code: 3)))
        #expect(source.isCompleted)
        for task in tasks { await #expect(throws: Broken(code: 3)) { try await task.value } }
        await #expect(throws: Broken(code: 3)) { try await source.value() }
    }

    @Test func completingWithAResult() async throws {
        let succeeded = CompletionSource<String>()
        #expect(succeeded.complete(with: .success("ok")))
        #expect(try await succeeded.value() == "ok")

        let failed = CompletionSource<String>()
        #expect(failed.complete(with: .failure(Broken(code: 1))))
        await #expect(throws: Broken(code: 1)) { try await failed.value() }
    }

    @Test func aVoidSourceCompletesWithoutAValue() async throws {
        let source = CompletionSource<Void>()
        let tasks = try await startWaiters(source, count: 1)
        #expect(source.complete())
        #expect(!source.complete())
        for task in tasks { try await task.value }
        try await source.value()
    }

    // MARK: First wins

    enum Call: Sendable, CustomTestStringConvertible {
        case value(Int)
        case error(Int)
        case result(Int)

        func apply(to source: CompletionSource<Int>) -> Bool {
            switch self {
            case .value(let value): source.complete(value)
            case .error(let code): source.fail(Broken(code: code))
            case .result(let value): source.complete(with: .success(value))
            }
        }

        var testDescription: String {
            switch self {
            case .value(let value): "complete(\(value))"
            case .error(let code): "fail(\(code))"
            case .result(let value): "complete(with: \(value))"
            }
        }
    }

    /// Every ordered pair of two different calls: the first wins, the second returns false and changes nothing.
    @Test(arguments: [
        (Call.value(1), Call.error(2)), (.error(1), .value(2)), (.value(1), .value(2)),
        (.error(1), .error(2)), (.result(1), .error(2)), (.error(1), .result(2)), (.value(1), .result(2)),
    ])
    func theFirstCompletionWins(first: Call, second: Call) async throws {
        let source = CompletionSource<Int>()
        let tasks = try await startWaiters(source, count: 2)
        #expect(first.apply(to: source))
        #expect(!second.apply(to: source))
        #expect(!second.apply(to: source))
        let results = [await tasks[0].result, await tasks[1].result, await Task { try await source.value() }.result]
        for result in results {
            switch first {
            case .value(let value), .result(let value): #expect(try result.get() == value)
            case .error(let code): #expect(throws: Broken(code: code)) { try result.get() }
            }
        }
    }

    /// Many tasks complete or fail at once: exactly one call returns true, and every waiter gets its result.
    @Test(arguments: 0..<20)
    func concurrentCompletersHaveExactlyOneWinner(repetition: Int) async throws {
        let source = CompletionSource<Int>()
        let tasks = try await startWaiters(source, count: 3)
        let start = Gate()
        let winners = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<64 {
                group.addTask {
                    await start.wait()
                    let won = index.isMultiple(of: 2) ? source.complete(index) : source.fail(Broken(code: index))
                    return won ? index : nil
                }
            }
            start.open()
            var winners: [Int] = []
            for await winner in group { if let winner { winners.append(winner) } }
            return winners
        }
        let winner = try #require(winners.count == 1 ? winners.first : nil, "winners: \(winners)")
        for task in tasks {
            let result = await task.result
            if winner.isMultiple(of: 2) {
                #expect(try result.get() == winner)
            } else {
                #expect(throws: Broken(code: winner)) { try result.get() }
            }
        }
    }

    // MARK: Cancellation

    /// Cancelling a waiting task (or several) completes the source with `CancellationError`,
    /// calls `onCancel` once, before any waiter throws, and ignores later completions.
    @Test(arguments: [(1, 1), (2, 1), (2, 2)])
    func cancellingAWaiterCancelsTheSource(waiting: Int, cancelled: Int) async throws {
        let onCancelCalls = LockedValue(0)
        let source = CompletionSource<Int> { onCancelCalls.withLock { $0 += 1 } }
        let tasks = try await startWaiters(source, count: waiting)
        for task in tasks.prefix(cancelled) { task.cancel() }
        for task in tasks {
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(onCancelCalls.value == 1, "onCancel returns before a waiter throws")
        }
        #expect(source.isCompleted)
        #expect(!source.complete(5), "completing after cancellation is ignored")
        #expect(!source.fail(Broken()))
        await #expect(throws: CancellationError.self) { try await source.value() }
        #expect(onCancelCalls.value == 1)
    }

    /// A task already cancelled when it calls `value()`: the cancellation handler runs before
    /// the continuation exists, and the waiter still throws at once.
    @Test(arguments: 0..<10)
    func aTaskCancelledBeforeItWaitsCancelsTheSource(repetition: Int) async throws {
        let onCancelCalls = LockedValue(0)
        let source = CompletionSource<Int> { onCancelCalls.withLock { $0 += 1 } }
        let start = Gate()
        let task = Task {
            await start.wait()
            return try await source.value()
        }
        task.cancel()
        start.open()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(onCancelCalls.value == 1)
        #expect(!source.complete(1))
    }

    /// Cancellation after completion changes nothing: the waiter gets the value, `onCancel` is not called.
    @Test func cancellingAfterCompletionIsIgnored() async throws {
        let onCancelCalls = LockedValue(0)
        let source = CompletionSource<Int> { onCancelCalls.withLock { $0 += 1 } }
        #expect(source.complete(9))
        let start = Gate()
        let task = Task {
            await start.wait()
            return try await source.value()
        }
        task.cancel()
        start.open()
        #expect(try await task.value == 9)
        #expect(onCancelCalls.value == 0)
    }

    /// Cancellation and completion race: exactly one decides, and `onCancel` runs exactly when cancellation did.
    @Test(arguments: 0..<50)
    func cancellationRacingCompletionDecidesOnce(repetition: Int) async throws {
        let onCancelCalls = LockedValue(0)
        let source = CompletionSource<Int> { onCancelCalls.withLock { $0 += 1 } }
        let tasks = try await startWaiters(source, count: 2)
        let start = Gate()
        let completer = Task {
            await start.wait()
            return source.complete(1)
        }
        let canceller = Task {
            await start.wait()
            tasks[0].cancel()
        }
        start.open()
        await canceller.value
        let completed = await completer.value
        for task in tasks {
            let result = await task.result
            if completed {
                #expect(try result.get() == 1)
            } else {
                #expect(throws: CancellationError.self) { try result.get() }
            }
        }
        #expect(onCancelCalls.value == (completed ? 0 : 1))
    }

    /// `onCancel` runs outside the lock: it may use the source.
    @Test func onCancelMayUseTheSource() async throws {
        let seen = LockedValue<(completed: Bool, accepted: Bool)?>(nil)
        let box = LockedValue<CompletionSource<Int>?>(nil)
        let source = CompletionSource<Int> {
            guard let source = box.value else { return }
            seen.withLock { $0 = (source.isCompleted, source.complete(3)) }
        }
        box.withLock { $0 = source }
        let tasks = try await startWaiters(source, count: 1)
        tasks[0].cancel()
        await #expect(throws: CancellationError.self) { try await tasks[0].value }
        let observed = try #require(seen.value)
        #expect(observed.completed && !observed.accepted)
        box.withLock { $0 = nil }
    }

    /// Completing releases `onCancel` (and what it captured) without calling it.
    @Test func completingReleasesOnCancel() async throws {
        final class Tracked: Sendable {
            let released: LockedValue<Bool>
            init(_ released: LockedValue<Bool>) { self.released = released }
            deinit { released.withLock { $0 = true } }
            func touch() {}
        }
        let released = LockedValue(false)
        let source = { () -> CompletionSource<Int> in
            let tracked = Tracked(released)
            return CompletionSource { tracked.touch() }
        }()
        #expect(!released.value)
        #expect(source.complete(1))
        #expect(released.value)
        #expect(try await source.value() == 1)
    }

    // MARK: In a workflow

    /// A job waits for a callback: when it fires, the job succeeds with its value and a dependent reads it.
    @Test(arguments: 0..<10)
    func aJobWaitsForACallback(repetition: Int) async throws {
        let sensor = FakeSensor()
        let sources = LockedValue<CompletionSource<String>?>(nil)
        var workflow = Workflow()
        let read = try workflow.add("read") { _ in
            let source = CompletionSource<String> { sensor.stop() }
            sources.withLock { $0 = source }
            sensor.startReading { reading in source.complete(reading) }
            return try await source.value()
        }
        let use = try workflow.add("use", needs: ["read"]) { ctx in "used " + (try await ctx.value(of: read)) }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        try #require(await BoundedWait.value { await sensor.reading.wait() } != nil)
        #expect(sensor.deliver("21.5 C"))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .succeeded)
        #expect(report.value(of: read) == "21.5 C")
        #expect(report.value(of: use) == "used 21.5 C")
        #expect(sensor.stops == 0)
        #expect(sources.value?.complete("late") == false)
    }

    /// Cancelling the job while its body waits cancels the source: the sensor is told to stop
    /// and the job ends cancelled. Cancelled right after the callback is registered (the body
    /// may not wait yet) and once the body waits.
    @Test(arguments: [false, true], 0..<10)
    func cancellingAJobThatWaitsForACallbackStopsTheAPI(onceWaiting: Bool, repetition: Int) async throws {
        let sensor = FakeSensor()
        let sources = LockedValue<CompletionSource<String>?>(nil)
        var workflow = Workflow()
        try workflow.add("read") { _ in
            let source = CompletionSource<String> { sensor.stop() }
            sources.withLock { $0 = source }
            sensor.startReading { reading in source.complete(reading) }
            return try await source.value()
        }
        try workflow.add("use", needs: ["read"]) { _ in }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        try #require(await BoundedWait.value { await sensor.reading.wait() } != nil)
        let source = try #require(sources.value)
        if onceWaiting { try #require(await waiters(source, atLeast: 1)) }
        run.cancel("read")
        let report = try #require(await BoundedWait.report(run))
        let outcome = try #require(report.outcome(of: "read"))
        #expect(outcome.status == .cancelled)
        #expect(outcome.error?.underlying is CancellationError)
        #expect(report.outcome(of: "use")?.status == .skipped)
        #expect(sensor.stops == 1)
        #expect(!sensor.deliver("too late"), "stop() dropped the callback")
        #expect(!source.complete("too late"))
    }
}
