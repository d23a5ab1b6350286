@testable import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The run's timer structure, driven as plain call sequences: no tasks, no clocks.
@Suite struct RunTimersTests {
    private typealias Timer = RunTimers.Timer

    @Test func theFirstTimerStartsADriverAndOnlyAnEarlierOneReplacesIt() {
        var timers = RunTimers()
        let (_, first) = timers.arm(timeoutOf: 0, at: 50)
        #expect(first == RunTimers.Start(id: 1, wakesAt: 50))
        let (_, later) = timers.arm(timeoutOf: 1, at: 50)
        #expect(later == nil, "an equal deadline waits for the driver that sleeps until 50")
        let graceStart = timers.addGracePeriod(of: 2, at: 70)
        #expect(graceStart == nil)
        let (_, earlier) = timers.arm(timeoutOf: 3, at: 20)
        #expect(earlier == RunTimers.Start(id: 2, wakesAt: 20))
        #expect(!timers.isCurrent(1) && timers.isCurrent(2))
        let staleDriver = timers.wake(1, now: 50)
        #expect(staleDriver == .stop, "the replaced driver ends")
        #expect(timers.driversStarted == 2)
        #expect(timers.earliest == 20 && timers.count == 4)
    }

    @Test func aDriverFiresWhatIsDueEarliestFirstThenSleepsUntilTheNext() {
        var timers = RunTimers()
        let first = timers.arm(timeoutOf: 5, at: 30)
        #expect(first.1?.id == 1)
        let driver: UInt64 = 2
        let earlier = timers.arm(timeoutOf: 6, at: 10)
        #expect(earlier.1 == RunTimers.Start(id: driver, wakesAt: 10))
        _ = timers.addGracePeriod(of: 7, at: 10)
        _ = timers.arm(timeoutOf: 8, at: 40)
        let early = timers.wake(driver, now: 9)
        #expect(early == .sleep(until: 10), "woken early: nothing is due")
        let at30 = timers.wake(driver, now: 30)
        #expect(at30 == .fire([
            Timer(deadline: 10, kind: .timeout, job: 6),
            Timer(deadline: 10, kind: .gracePeriod, job: 7),  // equal deadlines: in the order added
            Timer(deadline: 30, kind: .timeout, job: 5),
        ]))
        let whileFiring = timers.addGracePeriod(of: 9, at: 35)
        #expect(whileFiring == nil, "a driver that fires looks again before sleeping")
        let again = timers.wake(driver, now: 30)
        #expect(again == .sleep(until: 35))
        let at45 = timers.wake(driver, now: 45)
        #expect(at45 == .fire([
            Timer(deadline: 35, kind: .gracePeriod, job: 9), Timer(deadline: 40, kind: .timeout, job: 8),
        ]))
        let emptied = timers.wake(driver, now: 45)
        #expect(emptied == .stop, "nothing is left")
        let (_, next) = timers.arm(timeoutOf: 10, at: 100)
        #expect(next == RunTimers.Start(id: 3, wakesAt: 100), "a new timer after the driver ended starts one")
    }

    /// Whichever comes first, the attempt's end or its timer, decides, and the other learns it.
    @Test func anAttemptEndingAndItsTimerFiringAreDecidedOnce() {
        var timers = RunTimers()
        let (inTime, start) = timers.arm(timeoutOf: 0, at: 10)
        let (late, _) = timers.arm(timeoutOf: 1, at: 10)
        let driver = start?.id ?? 0
        let stoppedInTime = timers.stop(inTime)
        #expect(stoppedInTime, "stopped before it fired: in time")
        let woken = timers.wake(driver, now: 10)
        #expect(woken == .fire([Timer(deadline: 10, kind: .timeout, job: 1)]), "a stopped timer never fires")
        let lateInTime = timers.stop(late)
        #expect(!lateInTime, "fired before the attempt ended: timed out")
        #expect(timers.count == 0 && timers.slotCapacity == 2)
    }

    @Test func aStoppedTokensSlotIsReusedSoSteadyStateDoesNotGrow() {
        var timers = RunTimers()
        var tokens: [RunTimers.Token] = []
        for job in 0..<10_000 {
            if tokens.count == 4 {
                let inTime = timers.stop(tokens.removeFirst())
                #expect(inTime)
            }
            tokens.append(timers.arm(timeoutOf: Int32(job), at: 1_000 + Int64(job)).0)
        }
        #expect(timers.slotCapacity == 4 && timers.count == 4)
        #expect(timers.driversStarted == 1, "timeouts arriving in order never replace the driver")
    }

    @Test func aClosedQueueStartsAndWakesNoDriver() {
        var timers = RunTimers()
        let (token, start) = timers.arm(timeoutOf: 0, at: 10)
        timers.close()
        let woken = timers.wake(start?.id ?? 0, now: 10)
        #expect(woken == .stop)
        let graceStart = timers.addGracePeriod(of: 1, at: 1)
        #expect(graceStart == nil)
        let armed = timers.arm(timeoutOf: 2, at: 1)
        #expect(armed.1 == nil)
        let stoppedInTime = timers.stop(token)
        #expect(stoppedInTime, "a timer that never fired: the attempt ended in time")
    }

    /// Random arms, stops and wakes, checked after every step against a plain list of what is
    /// armed: the right timers fire, in order, exactly once, and each stop says whether its
    /// timer had fired.
    @Test(arguments: 0..<40)
    func randomStepsMatchAPlainModel(seed: UInt64) {
        var random = SplitMix64(state: seed)
        var timers = RunTimers()
        var armed: [(timer: Timer, order: Int, token: RunTimers.Token?)] = []
        var fired: [Int32: RunTimers.Token] = [:]
        var running: [(job: Int32, token: RunTimers.Token)] = []
        var driver: (id: UInt64, wakesAt: Int64?)?
        var now: Int64 = 0
        var order = 0
        func started(_ start: RunTimers.Start?) {
            if let start { driver = (start.id, start.wakesAt) }
        }
        for step in 0..<400 {
            let choice = random.next() % 10
            let job = Int32(step)
            if choice < 4 {
                let deadline = now + Int64(random.next() % 50)
                let (token, start) = timers.arm(timeoutOf: job, at: deadline)
                if let start { #expect(driver?.wakesAt.map { deadline < $0 } ?? true); #expect(start.wakesAt == deadline) }
                started(start)
                armed.append((Timer(deadline: deadline, kind: .timeout, job: job), order, token))
                running.append((job, token))
            } else if choice < 5 {
                let deadline = now + Int64(random.next() % 50)
                started(timers.addGracePeriod(of: job, at: deadline))
                armed.append((Timer(deadline: deadline, kind: .gracePeriod, job: job), order, nil))
            } else if choice < 7, !running.isEmpty {
                let (job, token) = running.remove(at: Int(random.next() % UInt64(running.count)))
                let wasFired = fired.removeValue(forKey: job) != nil
                let inTime = timers.stop(token)
                #expect(inTime == !wasFired)
                armed.removeAll { $0.token == token }
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
                    for entry in due {
                        if let token = entry.token { fired[entry.timer.job] = token }
                    }
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

/// Timeouts in a run: one driver task for the whole run, not a task per attempt.
@Suite(.timeLimit(.minutes(5)))
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
        let (started, slots) = run.core.runTimers.withLock { ($0.queue.driversStarted, $0.queue.slotCapacity) }
        #expect(started == 1, "the clock stands still, so every timeout is due at 60 s: one driver")
        #expect(slots <= 4, "at most one timeout per worker is armed at once")
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
