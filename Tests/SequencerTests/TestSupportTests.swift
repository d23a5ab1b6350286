import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

// MARK: - Helpers shared by the cancellation, deadline, snapshot, event and retry tests

/// Waits that cannot be cancelled by themselves (`ManualClock.sleepers(atLeast:)`,
/// `Gate.arrivals(atLeast:)`, `Run.report()`), made to give up when the waiting test is
/// cancelled, so that a test whose time limit passes fails instead of hanging the suite.
enum BoundedWait {
    /// Runs `operation` and returns its result, or nil if the calling task is cancelled first.
    static func value<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T? {
        let slot = Slot<T>()
        Task { slot.fill(await operation()) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { slot.install($0) }
        } onCancel: {
            slot.fill(nil)
        }
    }

    /// True once `clock` has at least `count` sleepers; false if the test was cancelled first.
    static func sleepers(_ clock: ManualClock, atLeast count: Int) async -> Bool {
        await value { await clock.sleepers(atLeast: count) } != nil
    }

    /// True once `clock` has a sleeper until `offset`; false if the test was cancelled first.
    /// Unlike counting sleepers, a sleeper that is about to go (a cancelled sleep not yet
    /// removed) cannot stand in for the one awaited.
    static func sleeper(_ clock: ManualClock, until offset: Duration) async -> Bool {
        await value {
            while !clock.sleeperDeadlines.contains(ManualClock.Instant(offset: offset)) {
                try? await Task.sleep(for: .milliseconds(1))
            }
            return true
        } != nil
    }

    /// True once `gate.wait()` was called at least `count` times; false if the test was cancelled first.
    static func arrivals(_ gate: Gate, atLeast count: Int) async -> Bool {
        await value { await gate.arrivals(atLeast: count) } != nil
    }

    /// The run's report, or nil if the test was cancelled before the run ended.
    static func report(_ run: Run) async -> RunReport? {
        await value { await run.report() }
    }

    /// A value filled once, by whichever comes first, and handed to one waiter.
    private final class Slot<T: Sendable>: Sendable {
        private enum State {
            case empty
            case waiting(CheckedContinuation<T?, Never>)
            case filled(T?)
            case done
        }

        private let state = Locked(State.empty)

        func install(_ continuation: CheckedContinuation<T?, Never>) {
            let ready: T?? = state.withLock { state in
                switch state {
                case .empty:
                    state = .waiting(continuation)
                    return .none
                case .filled(let value):
                    state = .done
                    return .some(value)
                case .waiting, .done:
                    return .none
                }
            }
            if case .some(let value) = ready { continuation.resume(returning: value) }
        }

        func fill(_ value: T?) {
            let waiter: CheckedContinuation<T?, Never>? = state.withLock { state in
                switch state {
                case .empty:
                    state = .filled(value)
                    return nil
                case .waiting(let continuation):
                    state = .done
                    return continuation
                case .filled, .done:
                    return nil
                }
            }
            waiter?.resume(returning: value)
        }
    }
}

/// A value shared between tasks, behind a mutex (the project's `Locked`, which ThreadSanitizer can see; see
/// `Locked.swift`).
final class LockedValue<Value: Sendable>: Sendable {
    private let mutex: Locked<Value>

    init(_ value: Value) { mutex = Locked(value) }

    var value: Value { mutex.withLock { $0 } }

    @discardableResult
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// The instant `offset` after a manual clock was made.
func manualInstant(_ offset: Duration) -> ManualClock.Instant { ManualClock.Instant(offset: offset) }

// MARK: - ManualClock

@Suite(.suiteTimeLimit)
struct ManualClockTests {
    @Test func startsAtZeroAndAdvancesOnlyWhenTold() {
        let clock = ManualClock()
        #expect(clock.now == manualInstant(.zero))
        clock.advance(by: .seconds(2))
        clock.advance(by: .milliseconds(500))
        #expect(clock.now == manualInstant(.milliseconds(2500)))
        #expect(clock.now.duration(to: manualInstant(.seconds(3))) == .milliseconds(500))
        #expect(clock.minimumResolution == .zero)
    }

    @Test func sleepingUntilNowOrThePastReturnsAtOnce() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: manualInstant(.seconds(5)))
        try await clock.sleep(until: manualInstant(.seconds(1)))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == manualInstant(.seconds(5)))
    }

    @Test func advanceWakesExactlyTheSleepersWhoseTimeHasCome() async throws {
        let clock = ManualClock()
        let woke = LockedValue<[Int: ManualClock.Instant]>([:])
        var tasks: [Int: Task<Void, any Error>] = [:]
        for second in [3, 1, 2] {
            tasks[second] = Task {
                try await clock.sleep(until: manualInstant(.seconds(second)))
                let now = clock.now
                woke.withLock { $0[second] = now }
            }
        }
        try #require(await BoundedWait.sleepers(clock, atLeast: 3))

        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 3, "nothing is due before 1s")

        clock.advance(by: .milliseconds(501))  // now 1.5s
        #expect(clock.sleeperCount == 2, "advance removes due sleepers before returning")
        try await tasks[1]!.value
        #expect(woke.withLock { $0.keys.sorted() } == [1])

        clock.advance(by: .milliseconds(1500))  // now 3s: both remaining are due
        #expect(clock.sleeperCount == 0)
        try await tasks[2]!.value
        try await tasks[3]!.value
        let times = woke.value
        #expect(times[1] == manualInstant(.milliseconds(1500)))
        #expect(times[2] == manualInstant(.seconds(3)))
        #expect(times[3] == manualInstant(.seconds(3)))
    }

    @Test(arguments: 0..<10)
    func advanceToNextDeadlineWakesSleepersInDeadlineOrder(seed: Int) async throws {
        let clock = ManualClock()
        // Deadlines in a shuffled order of registration; each task records the order it woke in.
        var deadlines = [5, 1, 4, 2, 3, 7, 6]
        var generator = SplitMix64(state: UInt64(seed) &+ 0x9E37_79B9_7F4A_7C15)
        deadlines.shuffle(using: &generator)
        var tasks: [Int: Task<Void, any Error>] = [:]
        for (count, second) in deadlines.enumerated() {
            tasks[second] = Task { try await clock.sleep(until: manualInstant(.seconds(second))) }
            try #require(await BoundedWait.sleepers(clock, atLeast: count + 1))
        }
        for second in deadlines.sorted() {
            #expect(clock.advanceToNextDeadline())
            #expect(clock.now == manualInstant(.seconds(second)))
            #expect(clock.sleeperCount == 7 - second)
            try await tasks[second]!.value
        }
        #expect(!clock.advanceToNextDeadline(), "no sleeper is left")
        #expect(clock.now == manualInstant(.seconds(7)))
    }

    @Test(arguments: 0..<10)
    func manySleepersWakeNoEarlierThanTheirDeadlines(seed: Int) async throws {
        let clock = ManualClock()
        var generator = SplitMix64(state: UInt64(seed) &+ 0x9E37_79B9_7F4A_7C15)
        let deadlines = (0..<50).map { _ in Int.random(in: 1...20, using: &generator) }
        let early = LockedValue(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for second in deadlines {
                group.addTask {
                    try await clock.sleep(until: manualInstant(.seconds(second)))
                    if clock.now < manualInstant(.seconds(second)) { early.withLock { $0 += 1 } }
                }
            }
            try #require(await BoundedWait.sleepers(clock, atLeast: deadlines.count))
            for step in 1...20 {
                clock.advance(by: .seconds(1))
                #expect(clock.sleeperCount == deadlines.filter { $0 > step }.count)
            }
            try await group.waitForAll()
        }
        #expect(early.value == 0)
    }

    @Test func cancellingASleeperThrowsCancellationErrorAndRemovesIt() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(until: manualInstant(.seconds(10))) }
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))
        task.cancel()
        #expect(clock.sleeperCount == 0, "the cancellation handler removes the sleeper at once")
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.now == manualInstant(.zero))
    }

    @Test func aTaskCancelledBeforeItSleepsThrowsAtOnce() async throws {
        let clock = ManualClock()
        let entered = Gate()
        entered.open()  // only counts arrivals
        let proceed = Gate()
        let task = Task {
            await entered.wait()
            await proceed.wait()
            try await clock.sleep(until: manualInstant(.seconds(10)))
        }
        try #require(await BoundedWait.arrivals(entered, atLeast: 1))
        task.cancel()
        proceed.open()
        let result = try #require(await BoundedWait.value { await task.result })
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(clock.sleeperCount == 0)
    }


    @Test func cancellingOneSleeperLeavesTheOthers() async throws {
        let clock = ManualClock()
        let doomed = Task { try await clock.sleep(until: manualInstant(.seconds(1))) }
        let kept = Task { try await clock.sleep(until: manualInstant(.seconds(1))) }
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))
        doomed.cancel()
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await kept.value
        await #expect(throws: CancellationError.self) { try await doomed.value }
    }

    @Test func sleepersAtLeastWaitsForTheCount() async throws {
        let clock = ManualClock()
        await clock.sleepers(atLeast: 0)  // already true
        let watcher = Task { await clock.sleepers(atLeast: 2) }
        let first = Task { try await clock.sleep(until: manualInstant(.seconds(1))) }
        let second = Task { try await clock.sleep(until: manualInstant(.seconds(2))) }
        try #require(await BoundedWait.value { await watcher.value } != nil)
        // Sleepers leave only when the clock moves, so the count cannot have dropped since.
        #expect(clock.sleeperCount == 2)
        clock.advance(by: .seconds(2))
        try await first.value
        try await second.value
    }

    @Test func worksAsAnyClockOfDuration() async throws {
        let manual = ManualClock()
        let clock: any Clock<Duration> = manual
        let task = Task { try await clock.sleep(for: .seconds(3)) }
        try #require(await BoundedWait.sleepers(manual, atLeast: 1))
        manual.advance(by: .seconds(3))
        try await task.value
    }
}

// MARK: - Gate

@Suite(.suiteTimeLimit)
struct GateTests {
    @Test func anOpenGateLetsEveryoneThrough() async {
        let gate = Gate()
        gate.open()
        await gate.wait()
        await gate.wait()
        #expect(gate.arrivals == 2)
    }

    @Test(arguments: 0..<10)
    func waitersPassOnlyAfterTheGateOpens(repetition: Int) async throws {
        let gate = Gate()
        let passed = LockedValue(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await gate.wait()
                    passed.withLock { $0 += 1 }
                }
            }
            try #require(await BoundedWait.arrivals(gate, atLeast: 8))
            #expect(gate.arrivals == 8)
            #expect(passed.value == 0, "nobody passes a closed gate")
            gate.open()
            try await group.waitForAll()
        }
        #expect(passed.value == 8)
        gate.open()  // opening again changes nothing
        await gate.wait()
        #expect(gate.arrivals == 9)
    }

    @Test func arrivalsAtLeastWaitsForLaterArrivals() async throws {
        let gate = Gate()
        await gate.arrivals(atLeast: 0)
        let watcher = Task { await gate.arrivals(atLeast: 3) }
        let waiters = (0..<3).map { _ in Task { await gate.wait() } }
        try #require(await BoundedWait.value { await watcher.value } != nil)
        #expect(gate.arrivals == 3)
        gate.open()
        for waiter in waiters { await waiter.value }
        await gate.arrivals(atLeast: 3)  // already reached: returns at once
    }
}
