@testable import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The run's timer structure, driven as plain call sequences: no tasks, no clocks.
@Suite struct RunTimersTests {
    private typealias Timer = RunTimers.Timer

    @Test func theFirstTimerStartsADriverAndOnlyAnEarlierOneReplacesIt() {
        var timers = RunTimers()
        let (p, q) = (WorkerProbe(), WorkerProbe())
        let first = timers.watch(p, at: 50)
        #expect(first == RunTimers.Start(id: 1, wakesAt: 50))
        let later = timers.watch(q, at: 50)
        #expect(later == nil, "an equal deadline waits for the driver that sleeps until 50")
        let graceStart = timers.addGracePeriod(of: 2, at: 70)
        #expect(graceStart == nil)
        let earlier = timers.watch(q, at: 20)
        #expect(earlier == RunTimers.Start(id: 2, wakesAt: 20))
        #expect(!timers.isCurrent(1) && timers.isCurrent(2))
        let staleDriver = timers.wake(1, now: 50)
        #expect(staleDriver == .stop, "the replaced driver ends")
        #expect(timers.driversStarted == 2)
        #expect(timers.earliest == 20 && timers.count == 4)
    }

    @Test func aDriverFiresWhatIsDueEarliestFirstThenSleepsUntilTheNext() {
        var timers = RunTimers()
        let (p, q, r) = (WorkerProbe(), WorkerProbe(), WorkerProbe())
        let first = timers.watch(p, at: 30)
        #expect(first?.id == 1)
        let driver: UInt64 = 2
        let earlier = timers.watch(q, at: 10)
        #expect(earlier == RunTimers.Start(id: driver, wakesAt: 10))
        _ = timers.addGracePeriod(of: 7, at: 10)
        _ = timers.watch(r, at: 40)
        let early = timers.wake(driver, now: 9)
        #expect(early == .sleep(until: 10), "woken early: nothing is due")
        let at30 = timers.wake(driver, now: 30)
        #expect(at30 == .fire([
            Timer(deadline: 10, kind: .watch, probe: q),
            Timer(deadline: 10, kind: .gracePeriod, job: 7),  // equal deadlines: in the order added
            Timer(deadline: 30, kind: .watch, probe: p),
        ]))
        let whileFiring = timers.addGracePeriod(of: 9, at: 35)
        #expect(whileFiring == nil, "a driver that fires looks again before sleeping")
        let again = timers.wake(driver, now: 30)
        #expect(again == .sleep(until: 35))
        let at45 = timers.wake(driver, now: 45)
        #expect(at45 == .fire([
            Timer(deadline: 35, kind: .gracePeriod, job: 9), Timer(deadline: 40, kind: .watch, probe: r),
        ]))
        let emptied = timers.wake(driver, now: 45)
        #expect(emptied == .stop, "nothing is left")
        let next = timers.watch(p, at: 100)
        #expect(next == RunTimers.Start(id: 3, wakesAt: 100), "a new timer after the driver ended starts one")
    }

    @Test func aClosedQueueStartsAndWakesNoDriver() {
        var timers = RunTimers()
        let probe = WorkerProbe()
        let start = timers.watch(probe, at: 10)
        timers.close()
        let woken = timers.wake(start?.id ?? 0, now: 10)
        #expect(woken == .stop)
        let graceStart = timers.addGracePeriod(of: 1, at: 1)
        #expect(graceStart == nil)
        let watched = timers.watch(probe, at: 1)
        #expect(watched == nil)
    }

    /// Random watches, grace periods and wakes, checked after every step against a plain list
    /// of what waits: the right timers fire, in order, exactly once.
    @Test(arguments: 0..<40)
    func randomStepsMatchAPlainModel(seed: UInt64) {
        var random = SplitMix64(state: seed)
        var timers = RunTimers()
        let probes = (0..<4).map { _ in WorkerProbe() }
        var armed: [(timer: Timer, order: Int)] = []
        var driver: (id: UInt64, wakesAt: Int64?)?
        var now: Int64 = 0
        var order = 0
        func started(_ start: RunTimers.Start?, at deadline: Int64) {
            guard let start else { return }
            #expect(driver?.wakesAt.map { deadline < $0 } ?? true)
            #expect(start.wakesAt == deadline)
            driver = (start.id, start.wakesAt)
        }
        for step in 0..<400 {
            let choice = random.next() % 10
            let deadline = now + Int64(random.next() % 50)
            if choice < 4 {
                let probe = probes[Int(random.next() % 4)]
                started(timers.watch(probe, at: deadline), at: deadline)
                armed.append((Timer(deadline: deadline, kind: .watch, probe: probe), order))
            } else if choice < 6 {
                started(timers.addGracePeriod(of: Int32(step), at: deadline), at: deadline)
                armed.append((Timer(deadline: deadline, kind: .gracePeriod, job: Int32(step)), order))
            } else if let current = driver {
                now += Int64(random.next() % 30)
                let due = armed.filter { $0.timer.deadline <= now }.sorted { ($0.timer.deadline, $0.order) < ($1.timer.deadline, $1.order) }
                let step = timers.wake(current.id, now: now)
                if due.isEmpty {
                    if let next = armed.map(\.timer.deadline).min() {
                        #expect(step == .sleep(until: next))
                        driver = (current.id, next)
                    } else {
                        #expect(step == .stop)
                        driver = nil
                    }
                } else {
                    #expect(step == .fire(due.map(\.timer)))
                    driver = (current.id, nil)
                    armed.removeAll { $0.timer.deadline <= now }
                }
            }
            order += 1
            #expect(timers.count == armed.count)
            #expect(timers.earliest == armed.map(\.timer.deadline).min())
            #expect(armed.isEmpty || driver != nil, "a timer waits only while a driver runs")
        }
    }
}

/// A worker's attempts' timeouts (``AttemptTimer``), as call sequences: an attempt adds a watch
/// only when none wakes by its deadline, and whichever comes first, its end or a watch that finds
/// it due, decides.
@Suite struct AttemptTimerTests {
    /// An ``AttemptTimer`` behind a reference, so that `#expect` can call its mutating methods.
    private final class Timing {
        var timer = AttemptTimer()
        func begin(_ job: Int32, dueAt deadline: Int64) -> Int64? { timer.begin(job, dueAt: deadline) }
        func end() -> Bool { timer.end() }
        func wake(now: Int64) -> AttemptTimer.Wake { timer.wake(now: now) }
    }

    @Test func attemptsWithLikeTimeoutsShareOneWatch() {
        let timer = Timing()
        #expect(timer.begin(1, dueAt: 100) == 100, "no watch waits: add one")
        #expect(timer.end())
        #expect(timer.begin(2, dueAt: 110) == nil, "the watch at 100 wakes first")
        #expect(timer.end())
        #expect(timer.begin(3, dueAt: 120) == nil)
        #expect(timer.wake(now: 100) == .watchAgain(at: 120), "the attempt under way is due at 120")
        #expect(timer.end())
        #expect(timer.begin(4, dueAt: 90) == 90, "a shorter timeout: the watch at 120 would be late")
    }

    @Test func aWatchThatFindsTheAttemptDueTimesItOutAndItsEndLearnsIt() {
        let timer = Timing()
        #expect(timer.begin(7, dueAt: 50) == 50)
        #expect(timer.wake(now: 50) == .timeOut(job: 7, at: 50))
        #expect(!timer.end(), "it timed out first")
        #expect(timer.wake(now: 60) == .none, "nothing is timed")
        #expect(timer.begin(7, dueAt: 80) == 80, "its next attempt: no watch waits, add one")
        #expect(timer.end(), "ended in time")
        #expect(timer.wake(now: 80) == .none, "ended: nothing to time out, nothing to watch")
    }

    @Test func anEndBeforeTheWatchIsInTime() {
        let timer = Timing()
        _ = timer.begin(1, dueAt: 10)
        #expect(timer.end())
        #expect(timer.wake(now: 10) == .none)
        #expect(timer.begin(2, dueAt: 30) == 30, "the watch is spent: add another")
    }

    @Test func anEarlierDeadlineAddsAnEarlierWatch() {
        let timer = Timing()
        #expect(timer.begin(1, dueAt: 100) == 100)
        #expect(timer.end())
        #expect(timer.begin(2, dueAt: 40) == 40, "the watch at 100 would be late")
        #expect(timer.wake(now: 40) == .timeOut(job: 2, at: 40))
        #expect(!timer.end())
        #expect(timer.begin(3, dueAt: 150) == 150, "the watch at 100 waits, but the state forgot it: one more")
        #expect(timer.wake(now: 100) == .none, "a watch at 150 waits")
        #expect(timer.wake(now: 150) == .timeOut(job: 3, at: 150))
    }

    /// A watch the driver took while an attempt began: the attempt relied on it, and the watch,
    /// waking after, comes back at the attempt's deadline.
    @Test func aWatchTakenAsAnAttemptBeginsComesBackForIt() {
        let timer = Timing()
        _ = timer.begin(1, dueAt: 10)
        #expect(timer.end())
        #expect(timer.begin(2, dueAt: 25) == nil, "the watch at 10 is still its own")
        #expect(timer.wake(now: 12) == .watchAgain(at: 25))
        #expect(timer.wake(now: 25) == .timeOut(job: 2, at: 25))
    }

    /// Random attempts, ends and wakes of the watches the timer asked for, against a plain model:
    /// while an attempt is under way a watch wakes by its deadline; once the watches due have
    /// woken, an attempt past its deadline has been timed out, once, and none before it.
    @Test(arguments: 0..<40)
    func randomSequencesTimeOutEachLateAttemptOnce(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let timer = Timing()
        var watches: [Int64] = []
        var attempt: (job: Int32, deadline: Int64)?
        var timedOut = false
        var now: Int64 = 0
        for step in 0..<500 {
            switch random.next() % 4 {
            case 0 where attempt == nil:
                let job = Int32(step)
                let deadline = now + Int64(random.next() % 40)
                if let at = timer.begin(job, dueAt: deadline) {
                    #expect(at == deadline)
                    watches.append(at)
                } else {
                    #expect(watches.contains { $0 <= deadline }, "no watch is added only when one wakes by the deadline")
                }
                attempt = (job, deadline)
                timedOut = false
            case 1 where attempt != nil:
                #expect(timer.end() == !timedOut)
                attempt = nil
            default:
                now += Int64(random.next() % 10)
                watches.sort()
                while let first = watches.first, first <= now {
                    watches.removeFirst()
                    switch timer.wake(now: now) {
                    case .timeOut(let job, let at):
                        #expect(job == attempt?.job && at == attempt?.deadline && at <= now && !timedOut)
                        timedOut = true
                    case .watchAgain(let at):
                        #expect(at == attempt?.deadline && at > now)
                        watches.append(at)
                    case .none:
                        break
                    }
                }
                if let attempt, !timedOut {
                    #expect(attempt.deadline > now, "step \(step): attempt \(attempt.job) due at \(attempt.deadline) untimed at \(now)")
                }
            }
            if let attempt, !timedOut {
                #expect(watches.contains { $0 <= attempt.deadline }, "step \(step): no watch wakes by \(attempt.deadline)")
            }
        }
    }
}

/// Timeouts in a run: one driver task for the whole run, not a task per attempt.
@Suite(.suiteTimeLimit)
struct RunTimerDriverTests {
    @Test func manyJobsWithATimeoutStartOneDriverAndLeaveNoTimerBehind() async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        for job in 0..<2_000 {
            try workflow.add(JobID("j\(job)"), timeout: .seconds(60)) { _ in }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 4, clock: clock))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.count(.succeeded) == 2_000)
        let (started, waiting) = run.core.runTimers.withLock { ($0.queue.driversStarted, $0.queue.count) }
        #expect(started == 1, "the clock stands still, so every timeout is due at 60 s: one driver")
        #expect(waiting <= 4, "attempts one after another share their worker's watch: one per worker at most")
        #expect(clock.sleeperCount == 0, "the driver is cancelled when the run ends")
    }

    /// Attempts running at once, with different timeouts, share one sleeping task.
    @Test(arguments: 0..<10)
    func runningAttemptsShareOneSleepingTask(repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, arrived) = (Gate(), Gate())
        arrived.open()  // counts arrivals without holding them
        var workflow = Workflow()
        for job in 0..<4 {
            try workflow.add(JobID("j\(job)"), timeout: .seconds(10 + job)) { _ in
                await arrived.wait()
                await gate.wait()
            }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 4, clock: clock))
        try #require(await BoundedWait.arrivals(arrived, atLeast: 4))  // all four timeouts armed
        try #require(await BoundedWait.sleeper(clock, until: .seconds(10)))
        #expect(clock.sleeperCount == 1, "one task sleeps until the earliest timeout")
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(report.count(.succeeded) == 4)
        #expect(clock.sleeperCount == 0)
    }

    /// Jobs timing out together, and their grace periods, are carried out by the same driver.
    @Test(arguments: 0..<5)
    func jobsTimingOutTogetherUseOneDriver(repetition: Int) async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        for job in 0..<20 {
            try workflow.add(JobID("j\(job)"), timeout: .seconds(5)) { _ in try await clock.sleep(for: .seconds(100)) }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 20, clock: clock, gracePeriod: .seconds(1)))
        try #require(await BoundedWait.sleepers(clock, atLeast: 21))  // 20 bodies and the driver
        clock.advance(by: .seconds(5))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.count(.timedOut) == 20)
        #expect(report.outcomes.allSatisfy { $0.endedAt == .seconds(5) })
        #expect(run.core.runTimers.withLock { $0.queue.driversStarted } == 1)
        #expect(clock.sleeperCount == 0)
    }

    /// A timeout too large to add to the clock's reading saturates instead of overflowing.
    @Test func anEnormousTimeoutNeverFiresAndDoesNotOverflow() async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        try workflow.add("first") { _ in try await clock.sleep(for: .seconds(1)) }
        // Armed at 1 s: 1 s + Duration.seconds(.max) is past what an Int64 of nanoseconds holds.
        let job = try workflow.add("patient", needs: ["first"], timeout: .seconds(Int64.max)) { _ in 1 }
        let run = try workflow.start(RunOptions(clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))
        clock.advance(by: .seconds(1))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.value(of: job) == 1)
    }
}
