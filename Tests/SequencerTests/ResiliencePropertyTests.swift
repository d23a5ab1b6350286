import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Property sweeps over random graphs whose jobs fail, retry and time out, on a manual clock.
///
/// Each seed builds a random DAG of 5 to 30 jobs, each of which succeeds at once, sleeps a few
/// seconds (within its timeout or not), fails its first attempts then succeeds, always fails, or
/// hangs (sleeping, cooperatively, far beyond its timeout), with a random retry policy and
/// sometimes a timeout; some runs keep going after a failure, some stop, some have a deadline,
/// and 1 to 4 jobs run at once. A driver moves the clock only when every running job waits for it
/// (see ``Driver``), so every run is deterministic in time, and the tests check:
/// - every job ends exactly once, as its events and the report say, and as its behaviour, its
///   policy, its timeout and the deadline decide, at the very instant they decide;
/// - a job starts only after its needs succeeded; the others are skipped, and why;
/// - attempts never exceed the policy, equal the body's calls, and are spaced by the policy's delays;
/// - a timed-out job was cancelled at its timeout and not retried; a fast job never times out;
/// - no body starts after the run reported, and the run leaves no timer behind.
///
/// A failure names its seed; `invariantsHoldOnRandomGraphs(seed:)` with that seed reproduces it
/// (`SEQUENCER_SEEDS=N swift test --filter invariantsHoldOnRandomGraphs`; see `sweepSeeds(default:)`).
@Suite(.suiteTimeLimit)
struct ResiliencePropertyTests {
    @Test(arguments: sweepSeeds(default: 0..<200))
    func invariantsHoldOnRandomGraphs(seed: UInt64) async throws {
        let scenario = Scenario(seed: seed)
        let outcome = try await scenario.run()
        outcome.check()
    }

    /// The generator makes what the sweep claims to cover: each behaviour, timeouts on fast and
    /// on failing jobs, each kind of retry policy, runs that stop and runs with a deadline.
    @Test func theSweepCoversEveryKindOfJobAndRun() {
        let scenarios = (0..<200).map { Scenario(seed: UInt64($0)) }
        let jobs = scenarios.flatMap(\.jobs)
        #expect(jobs.contains { if case .hangs = $0.behaviour { true } else { false } })
        #expect(jobs.contains { if case .fails = $0.behaviour { $0.retry.maxAttempts > 1 && $0.timeout != nil } else { false } })
        #expect(jobs.contains { if case .flaky = $0.behaviour { $0.retry.maxAttempts > 1 && $0.timeout != nil } else { false } })
        #expect(jobs.contains { if case .succeeds = $0.behaviour { $0.timeout != nil } else { false } })
        #expect(jobs.contains { if case .slow(let seconds) = $0.behaviour { $0.timeout.map { $0 > .seconds(seconds) } == true } else { false } })
        #expect(jobs.contains { if case .slow(let seconds) = $0.behaviour { $0.timeout.map { $0 < .seconds(seconds) } == true } else { false } })
        #expect(jobs.contains { $0.retry == RetryPolicy.none } && jobs.contains { $0.retryText.hasPrefix("fixed") }
            && jobs.contains { $0.retryText.hasPrefix("exponential") })
        #expect(scenarios.contains { !$0.keepGoing } && scenarios.contains { $0.keepGoing })
        #expect(scenarios.contains { $0.deadline != nil })
        #expect(Set(scenarios.map(\.maxConcurrency)) == [1, 2, 3, 4])
        #expect(scenarios.map(\.jobs.count).min() == 5 && scenarios.map(\.jobs.count).max() == 30)
    }
}

// MARK: - Scenarios

/// What a job's body does.
private enum Behaviour: CustomStringConvertible {
    /// Returns at once.
    case succeeds
    /// Sleeps on the run's clock for `seconds`, then returns (unless its timeout passes first).
    case slow(seconds: Int)
    /// Throws on its first `failures` attempts, then returns.
    case flaky(failures: Int)
    /// Throws on every attempt.
    case fails
    /// Sleeps on the run's clock far beyond its timeout; returns (throwing) when cancelled.
    case hangs

    /// Whether its body sleeps on the clock.
    var sleeps: Bool {
        switch self {
        case .slow, .hangs: true
        case .succeeds, .flaky, .fails: false
        }
    }

    var description: String {
        switch self {
        case .succeeds: "succeeds"
        case .slow(let seconds): "slow(\(seconds)s)"
        case .flaky(let failures): "flaky(\(failures))"
        case .fails: "fails"
        case .hangs: "hangs"
        }
    }
}

private struct JobPlan: CustomStringConvertible {
    let id: JobID
    let needs: [Int]
    let behaviour: Behaviour
    let timeout: Duration?
    let retry: RetryPolicy
    let retryText: String

    var description: String {
        "\(id) \(behaviour) needs \(needs) timeout \(timeout.map { "\($0)" } ?? "-") retry \(retryText)"
    }
}

/// The error a job's body throws on purpose.
private struct InjectedFailure: Error, Equatable {
    let job: Int
    let attempt: Int
}

/// How long a hanging body sleeps, and how long a cancelled body may take to return: both far
/// beyond anything the driver advances to, so no body wakes on its own and none is abandoned.
private let hangFor = Duration.seconds(1_000_000)
private let gracePeriod = Duration.seconds(100_000)
/// Timers due within this much of now are the run's timeouts, backoffs and deadline; the later
/// ones are hanging bodies and grace timers.
private let horizon = Duration.seconds(10_000)

/// One seed's graph and run options.
///
/// Durations are chosen so that no two timers of one job fall due together, and none with the
/// deadline: timeouts are whole seconds and a half, sleeps and retry delays whole seconds, so an
/// attempt's timeout never falls due with its sleep or its retry; every instant the clock reaches
/// before the deadline is one of those, a multiple of half a second, and the deadline is whole
/// seconds and a quarter. So a timeout timer not stopped yet is never mistaken for a backoff not
/// begun yet (see ``TracedClock``), and whether the timeout or the deadline came first is never a
/// race.
private struct Scenario: CustomStringConvertible {
    let seed: UInt64
    let jobs: [JobPlan]
    let maxConcurrency: Int
    let keepGoing: Bool
    let deadline: Duration?
    let index: [JobID: Int]

    init(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let count = random.int(5...30)
        // What goes wrong, in a quarter of the runs each: nothing (every job succeeds in the
        // end, or is cut short by the deadline), a little, a lot, or only timeouts.
        let trouble = random.int(0...3)
        let (failing, hanging) = [(0, 0), (4, 4), (10, 10), (0, 12)][trouble]
        let flakyJobsRecover = trouble == 0 || trouble == 3
        var jobs: [JobPlan] = []
        for job in 0..<count {
            var needs: [Int] = []
            if job > 0 {
                for _ in 0..<random.pick([0, 0, 1, 1, 1, 2, 2, 3]) {
                    let need = random.int(0...job - 1)
                    if !needs.contains(need) { needs.append(need) }
                }
            }
            let (retry, retryText) = Self.retryPolicy(&random)
            let behaviour: Behaviour
            var timeout: Duration?
            let roll = random.int(0...99)
            if roll < failing {
                behaviour = .fails
            } else if roll < failing + hanging {
                behaviour = .hangs
                timeout = .milliseconds(500) + .seconds(random.int(1...4))
            } else if roll < failing + hanging + 16 {
                let seconds = random.int(1...4)
                behaviour = .slow(seconds: seconds)
                if random.chance(percent: 40) {
                    // When nothing should go wrong, it sleeps within its timeout; otherwise it may not.
                    let shortest = trouble == 0 ? seconds : 1
                    timeout = .milliseconds(500) + .seconds(random.int(shortest...shortest + 3))
                }
            } else if roll < failing + hanging + 40, retry.maxAttempts > 1 || !flakyJobsRecover {
                let failures = random.pick([1, 1, 2, 3])
                behaviour = .flaky(failures: flakyJobsRecover ? min(failures, retry.maxAttempts - 1) : failures)
            } else {
                behaviour = .succeeds
            }
            if timeout == nil, !behaviour.sleeps, random.chance(percent: 30) {
                timeout = .milliseconds(500) + .seconds(random.int(1...4))
            }
            jobs.append(JobPlan(
                id: JobID("j\(job)"), needs: needs, behaviour: behaviour, timeout: timeout, retry: retry,
                retryText: retryText))
        }
        self.seed = seed
        self.jobs = jobs
        maxConcurrency = random.int(1...4)
        keepGoing = random.chance(percent: 70)
        deadline = random.chance(percent: 25) ? .seconds(random.int(2...10)) + .milliseconds(250) : nil
        index = Dictionary(uniqueKeysWithValues: jobs.enumerated().map { ($1.id, $0) })
    }

    /// No retries in about a third of the jobs; fixed or exponential delays (whole seconds,
    /// without jitter) in the others.
    private static func retryPolicy(_ random: inout SplitMix64) -> (RetryPolicy, String) {
        switch random.int(0...99) {
        case 0..<35:
            return (.none, "none")
        case 35..<70:
            let attempts = random.int(2...4)
            let delay = Duration.seconds(random.int(0...3))
            return (.fixed(attempts: attempts, delay: delay), "fixed(\(attempts), \(delay))")
        default:
            let attempts = random.int(2...5)
            let initial = Duration.seconds(random.int(1...2))
            let multiplier = random.int(2...3)
            let maximum = Duration.seconds(random.pick([4, 6, 8]))
            return (
                .exponential(attempts: attempts, initial: initial, multiplier: Double(multiplier), max: maximum, jitter: 0),
                "exponential(\(attempts), \(initial) x\(multiplier) max \(maximum))"
            )
        }
    }

    var description: String {
        "seed \(seed): \(jobs.count) jobs, maxConcurrency \(maxConcurrency), keepGoing \(keepGoing), "
            + "deadline \(deadline.map { "\($0)" } ?? "none")\n" + jobs.map { "  \($0)" }.joined(separator: "\n")
    }

    /// Runs the scenario to its end on a manual clock and collects what happened.
    func run() async throws -> RunRecordings {
        let progress = Progress()
        let clock = TracedClock(progress: progress)
        let log = BodyLog(jobs: jobs.count, progress: progress)
        var workflow = Workflow()
        for (job, plan) in jobs.enumerated() {
            try workflow.add(
                plan.id, needs: plan.needs.map { jobs[$0].id }, timeout: plan.timeout, retry: plan.retry,
                Self.body(of: job, plan.behaviour, clock: clock, log: log))
        }
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let events = LockedValue<[RunEvent]>([])
        let reader = Task {
            for await event in stream {
                events.withLock { $0.append(event) }
                progress.bump()
            }
        }
        let run = try workflow.start(RunOptions(
            maxConcurrency: maxConcurrency, deadline: deadline, keepGoing: keepGoing, clock: clock,
            events: continuation, gracePeriod: gracePeriod))

        let driver = Driver(scenario: self, clock: clock, log: log, progress: progress)
        if let stuck = await driver.drive(run) {
            Issue.record("seed \(seed): the run did not end: \(stuck)\n\(self)\nevents: \(events.value)")
            run.cancel()
        }
        let report = try #require(await BoundedWait.report(run), "seed \(seed): no report")
        log.runReported()
        // The stream ends right after `.runFinished`, which is sent before the report is.
        _ = await BoundedWait.value { await reader.value }
        return RunRecordings(
            scenario: self, report: report, events: events.value, bodies: log.state,
            sleepersLeft: clock.manual.sleeperCount, timersLeft: clock.pending(within: nil))
    }

    private static func body(
        of job: Int, _ behaviour: Behaviour, clock: TracedClock, log: BodyLog
    ) -> @Sendable (JobContext) async throws -> Void {
        { context in
            // A sleep ends at a time counted from the entry logged, not from when it begins:
            // the driver may move the clock between the two, when it took the run's snapshot
            // before this job started (seed 19 under ThreadSanitizer then slept a second late).
            let entered = clock.now
            log.enter(job, attempt: context.attempt, at: entered.offset)
            switch behaviour {
            case .succeeds:
                break
            case .slow(let seconds):
                do {
                    try await clock.sleep(until: entered.advanced(by: .seconds(seconds)))
                } catch {
                    log.end(job, .cancelled, at: clock.now.offset)
                    throw error
                }
            case .flaky(let failures):
                if context.attempt <= failures {
                    log.end(job, .threw, at: clock.now.offset)
                    throw InjectedFailure(job: job, attempt: context.attempt)
                }
            case .fails:
                log.end(job, .threw, at: clock.now.offset)
                throw InjectedFailure(job: job, attempt: context.attempt)
            case .hangs:
                do {
                    try await clock.sleep(until: entered.advanced(by: hangFor))
                } catch {
                    log.end(job, .cancelled, at: clock.now.offset)
                    throw error
                }
            }
            log.end(job, .returned, at: clock.now.offset)
        }
    }
}

// MARK: - Recording

/// Counts changes the driver can see (events, body calls, timers set and cleared) and lets it
/// wait for the next one.
private final class Progress: Sendable {
    private struct State {
        var version: UInt64 = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    var version: UInt64 { state.withLock { $0.version } }

    func bump() {
        let waiters = state.withLock { state in
            state.version &+= 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once something changed after `version` was read.
    func change(after version: UInt64) async {
        await withCheckedContinuation { continuation in
            let changed = state.withLock { state in
                if state.version != version { return true }
                state.waiters.append(continuation)
                return false
            }
            if changed { continuation.resume() }
        }
    }
}

/// A `ManualClock` that also knows the deadline of every sleep in progress.
///
/// `ManualClock.sleeperCount` says how many tasks sleep, not which: a retry's backoff that has not
/// begun and a timeout timer that has not been stopped yet count the same. The driver compares
/// the deadlines it expects with these, so it never advances while a timer it does not expect is
/// still set, or one it expects is not set yet.
private final class TracedClock: Clock, Sendable {
    typealias Instant = ManualClock.Instant

    let manual = ManualClock()
    private let progress: Progress

    private struct State {
        var nextID = 0
        var pending: [Int: Instant] = [:]
        /// Sleeps cancelled before they were recorded: they must not be.
        var cancelled: Set<Int> = []
    }

    private let state = LockedValue(State())

    init(progress: Progress) { self.progress = progress }

    var now: Instant { manual.now }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            state.withLock { state in
                if state.cancelled.remove(id) == nil { state.pending[id] = deadline }
            }
            progress.bump()
            defer {
                state.withLock { $0.pending[id] = nil }
                progress.bump()
            }
            try await manual.sleep(until: deadline, tolerance: tolerance)
        } onCancel: {
            // Synchronous with the cancellation (`Task.cancel()` runs this before it returns), so a
            // timer stopped is a timer gone.
            state.withLock { state in
                if state.pending.removeValue(forKey: id) == nil { state.cancelled.insert(id) }
            }
            progress.bump()
        }
    }

    /// The offsets of the sleeps still to wake, due before `now + within` (or all of them).
    func pending(within: Duration?) -> [Duration] {
        let now = manual.now
        return state.withLock { state in
            state.pending.values.filter { deadline in
                deadline > now && within.map { deadline.offset < now.offset + $0 } ?? true
            }.map(\.offset).sorted()
        }
    }
}

/// Every call of every body: when it began and how it ended, in one global order.
private final class BodyLog: Sendable {
    enum End: Equatable, Sendable, CustomStringConvertible {
        case returned, threw, cancelled

        var description: String {
            switch self {
            case .returned: "returned"
            case .threw: "threw"
            case .cancelled: "cancelled"
            }
        }
    }

    struct Attempt: Sendable, CustomStringConvertible {
        let number: Int
        let enteredAt: Duration
        let entered: Int
        var end: End?
        var endedAt: Duration?
        var ended: Int?

        var description: String {
            "#\(number) \(enteredAt)(\(entered))..\(end.map { "\($0)" } ?? "running") \(endedAt.map { "\($0)" } ?? "")(\(ended ?? -1))"
        }
    }

    struct State: Sendable {
        var sequence = 0
        var attempts: [[Attempt]]
        var reported = false
        var calledAfterReport: [String] = []
    }

    private let progress: Progress
    private let locked: LockedValue<State>

    init(jobs: Int, progress: Progress) {
        self.progress = progress
        locked = LockedValue(State(attempts: Array(repeating: [], count: jobs)))
    }

    var state: State { locked.value }

    func enter(_ job: Int, attempt: Int, at time: Duration) {
        locked.withLock { state in
            if state.reported { state.calledAfterReport.append("j\(job) attempt \(attempt)") }
            state.attempts[job].append(Attempt(number: attempt, enteredAt: time, entered: state.sequence))
            state.sequence += 1
        }
        progress.bump()
    }

    func end(_ job: Int, _ end: End, at time: Duration) {
        locked.withLock { state in
            let last = state.attempts[job].count - 1
            state.attempts[job][last].end = end
            state.attempts[job][last].endedAt = time
            state.attempts[job][last].ended = state.sequence
            state.sequence += 1
        }
        progress.bump()
    }

    /// Called right after `run.report()` returned: from now on, a body call is a bug.
    func runReported() { locked.withLock { $0.reported = true } }
}

// MARK: - Driving the clock

/// Moves a run's clock forward, only ever when every running job waits for it.
///
/// A running job waits for the clock when its body sleeps (until its sleep ends or its timeout
/// passes, whichever is first), or when an attempt threw and its retry's backoff is set. Any other
/// running job is busy: about to call its body, in a body that returns at once, being cancelled,
/// or about to end; the clock must not move under it, or a fast attempt could overrun its
/// timeout, a backoff or a timer could start late, or a sleep end before its timeout was handled.
/// With the deadline (when set), the timers of the waiting jobs are all the timers due before
/// ``horizon``; when exactly those are set, the clock moves to the earliest. Otherwise the driver
/// waits for the next change (an event, a body call, a timer set or cleared) and looks again.
/// It never sleeps for real and never guesses.
///
/// Sleeping bodies, backoffs and the deadline are a task each; the attempts' timeouts share one
/// task, which sleeps until the earliest of them, or until the timeout of an attempt that ended
/// since (it then finds nothing due and sleeps again): see ``matches(_:sleeps:timeouts:armed:)``.
private struct Driver {
    let scenario: Scenario
    let clock: TracedClock
    let log: BodyLog
    let progress: Progress

    /// Returns nil when the run finished, or why it will not: nothing runs though jobs have not
    /// started, or what the driver was waiting for when the test's time limit cancelled it.
    func drive(_ run: Run) async -> String? {
        while true {
            let version = progress.version
            let snapshot = run.snapshot
            if snapshot.isFinished { return nil }
            // Every state change happens under the scheduler's lock, and the step that ends a job
            // also starts what it freed: a run with nothing running has ended, or never will.
            if snapshot.running.isEmpty { return "nothing runs, but \(snapshot.pending) jobs have not started: \(snapshot)" }
            let now = clock.now.offset
            let bodies = log.state
            var expected: [Duration] = []
            var timeouts: [Duration] = []
            var waiting = true
            for id in snapshot.running {
                guard let job = scenario.index[id], let timers = timers(of: job, bodies, now: now) else {
                    waiting = false
                    break
                }
                expected += timers.sleeps
                timeouts += timers.timeout.map { [$0] } ?? []
            }
            if let deadline = scenario.deadline, deadline > now { expected.append(deadline) }
            let pending = clock.pending(within: horizon)
            if waiting, !expected.isEmpty || !timeouts.isEmpty, let next = pending.first,
                matches(pending, sleeps: expected, timeouts: timeouts, armed: armedTimeouts(bodies)) {
                clock.manual.advance(by: next - now)
                continue
            }
            if await BoundedWait.value({ await progress.change(after: version) }) == nil {
                return "at \(now) running \(snapshot.running), waiting \(waiting), expected timers \(expected), "
                    + "timeouts \(timeouts), set \(clock.pending(within: nil)), bodies \(bodies.attempts)"
            }
        }
    }

    /// Whether the sleeps set (`pending`, sorted) are exactly `sleeps` and the one task of the
    /// timeouts: sleeping until the earliest of `timeouts`, or until an earlier one that was
    /// `armed` and has ended since; with no timeout running, that task may still sleep until
    /// one that ended.
    private func matches(_ pending: [Duration], sleeps: [Duration], timeouts: [Duration], armed: Set<Duration>) -> Bool {
        var rest = pending
        for sleep in sleeps {
            guard let index = rest.firstIndex(of: sleep) else { return false }
            rest.remove(at: index)
        }
        guard let driver = rest.first else { return timeouts.isEmpty }
        guard rest.count == 1, armed.contains(driver) else { return false }
        return timeouts.min().map { driver <= $0 } ?? true
    }

    /// When each attempt so far of a job with a timeout was due to time out.
    private func armedTimeouts(_ bodies: BodyLog.State) -> Set<Duration> {
        var armed: Set<Duration> = []
        for (job, attempts) in bodies.attempts.enumerated() {
            guard let timeout = scenario.jobs[job].timeout else { continue }
            for attempt in attempts { armed.insert(attempt.enteredAt + timeout) }
        }
        return armed
    }

    /// The timers the running job `job` waits for, or nil when it is busy: the sleeps of its
    /// body or its backoff, and its attempt's timeout.
    private func timers(of job: Int, _ bodies: BodyLog.State, now: Duration) -> (sleeps: [Duration], timeout: Duration?)? {
        let plan = scenario.jobs[job]
        guard let last = bodies.attempts[job].last else { return nil }  // its body is about to be called
        if let deadline = scenario.deadline, deadline <= now { return nil }  // it is being cancelled
        switch last.end {
        case nil:
            // In its body: a sleeping body waits for its sleep and its timeout, whichever is first.
            let sleeps: [Duration]
            switch plan.behaviour {
            case .hangs: sleeps = []  // beyond the horizon: only its timeout counts
            case .slow(let seconds): sleeps = [last.enteredAt + .seconds(seconds)]
            case .succeeds, .flaky, .fails: return nil
            }
            let timeout = plan.timeout.map { last.enteredAt + $0 }
            return (sleeps + (timeout.map { [$0] } ?? [])).allSatisfy { $0 > now } ? (sleeps, timeout) : nil
        case .threw:
            // Retried after the policy's delay, unless attempts ran out or the retry would end
            // after the deadline.
            guard let thrownAt = last.endedAt, last.number < plan.retry.maxAttempts else { return nil }
            let resume = thrownAt + plan.retry.delay(beforeAttempt: last.number + 1)
            if let deadline = scenario.deadline, resume >= deadline { return nil }
            return resume > now ? ([resume], nil) : nil
        case .returned, .cancelled:
            return nil
        }
    }
}

// MARK: - Checking

/// What one run did, and the checks of the properties.
private struct RunRecordings {
    let scenario: Scenario
    let report: RunReport
    let events: [RunEvent]
    let bodies: BodyLog.State
    let sleepersLeft: Int
    let timersLeft: [Duration]

    /// Checks every property; when one fails, also records the scenario and what happened.
    func check() {
        let check = Checker(seed: scenario.seed)
        checkEvents(check)
        checkBodies(check)
        checkOutcomes(check)
        checkRun(check)
        if check.failures > 0 {
            Issue.record("""
                seed \(scenario.seed): \(check.failures) properties failed in
                \(scenario)
                events: \(events)
                bodies:
                  \(bodies.attempts.enumerated().map { "j\($0): \($1)" }.joined(separator: "\n  "))
                outcomes:
                  \(report.outcomes.map(\.description).joined(separator: "\n  "))
                """)
        }
    }

    private var jobCount: Int { scenario.jobs.count }
    /// The first job that failed or timed out, by the events.
    private var firstStopped: JobID? {
        for event in events {
            if case .finished(let id, let status) = event, status == .failed || status == .timedOut { return id }
        }
        return nil
    }
    private func id(_ job: Int) -> JobID { scenario.jobs[job].id }
    private func outcome(_ job: Int) -> JobOutcome { report.outcomes[job] }

    /// (a) Exactly one `.finished` per job, agreeing with the report; `.started` at most once,
    /// before it, and exactly for the jobs whose body was called; `.runFinished` last.
    /// (e) A job starts only after all its needs succeeded. Without keepGoing, nothing starts
    /// after the first failure or timeout.
    private func checkEvents(_ check: Checker) {
        var started = [Int?](repeating: nil, count: jobCount)
        var finished = [(at: Int, status: JobStatus)?](repeating: nil, count: jobCount)
        var firstStop: Int?
        for (position, event) in events.enumerated() {
            switch event {
            case .started(let id):
                guard let job = scenario.index[id] else { check.expect(false, "an event for an unknown job: \(event)"); continue }
                check.expect(started[job] == nil, "\(id) started twice")
                check.expect(finished[job] == nil, "\(id) started after it finished")
                started[job] = started[job] ?? position
                if !scenario.keepGoing, let firstStop {
                    check.expect(false, "\(id) started after \(events[firstStop]) without keepGoing")
                }
            case .finished(let id, let status):
                guard let job = scenario.index[id] else { check.expect(false, "an event for an unknown job: \(event)"); continue }
                check.expect(finished[job] == nil, "\(id) finished twice")
                finished[job] = finished[job] ?? (position, status)
                if status == .failed || status == .timedOut { firstStop = firstStop ?? position }
            case .runFinished(let status):
                check.expect(position == events.count - 1, "\(event) is not the last event")
                check.expect(status == report.status, "\(event), but the report says \(report.status)")
            }
        }
        check.expect(events.last.map { if case .runFinished = $0 { true } else { false } } == true, "the last event is not .runFinished")
        for job in 0..<jobCount {
            let outcome = outcome(job)
            check.expect(finished[job]?.status == outcome.status,
                "\(id(job)) finished as \(finished[job].map { "\($0.status)" } ?? "never") in events, \(outcome.status) in the report")
            check.expect((started[job] != nil) == !bodies.attempts[job].isEmpty,
                "\(id(job)): started event \(started[job] != nil), body called \(bodies.attempts[job].count) times")
            guard let start = started[job] else { continue }
            for need in scenario.jobs[job].needs {
                let ended = finished[need]
                check.expect(ended?.status == .succeeded && ended!.at < start,
                    "\(id(job)) started at event \(start), but its need \(id(need)) ended as \(ended.map { "\($0.status) at event \($0.at)" } ?? "never")")
            }
        }
    }

    /// (c) Attempts are numbered 1, 2, ...; all but the last threw; retries are spaced by the
    /// policy's delay; the outcome counts every call and no more than the policy allows.
    /// (d) No body was called after the report; every body returned.
    /// (e) A body is called only after the bodies of all its needs returned.
    private func checkBodies(_ check: Checker) {
        check.expect(bodies.calledAfterReport.isEmpty, "bodies called after the report: \(bodies.calledAfterReport)")
        for job in 0..<jobCount {
            let plan = scenario.jobs[job]
            let attempts = bodies.attempts[job]
            let outcome = outcome(job)
            check.expect(outcome.attempts == attempts.count, "\(plan.id) counts \(outcome.attempts) attempts; its body was called \(attempts.count) times")
            check.expect(attempts.count <= plan.retry.maxAttempts, "\(plan.id) made \(attempts.count) attempts; its policy allows \(plan.retry.maxAttempts)")
            check.expect(attempts.map(\.number) == Array(1..<(attempts.count + 1)),
                "\(plan.id) attempts numbered \(attempts.map(\.number))")
            check.expect(attempts.allSatisfy { $0.end != nil }, "\(plan.id) has a body call that never returned")
            for (previous, next) in zip(attempts, attempts.dropFirst()) {
                check.expect(previous.end == .threw, "\(plan.id) was tried again after attempt \(previous.number) \(previous.end.map { "\($0)" } ?? "ran")")
                let delay = plan.retry.delay(beforeAttempt: next.number)
                check.expect(previous.endedAt.map { next.enteredAt - $0 } == delay,
                    "\(plan.id) attempt \(next.number) began at \(next.enteredAt), attempt \(previous.number) ended at \(previous.endedAt.map { "\($0)" } ?? "-"); the delay is \(delay)")
            }
            guard let first = attempts.first else { continue }
            for need in plan.needs {
                let last = bodies.attempts[need].last
                check.expect(last?.end == .returned && (last?.ended ?? .max) < first.entered,
                    "\(plan.id) was called before its need \(id(need)) returned")
            }
        }
    }

    /// What each job's outcome must be, from its behaviour, its calls and the run's options.
    /// (b) Jobs whose needs did not all succeed never start and are skipped because of it (or
    /// because the run stopped, or the deadline passed); jobs whose needs succeeded start unless
    /// the run stopped. (f) Timed-out jobs are `.timedOut` with code `.timedOut` at exactly their
    /// timeout, were cancelled, and made one attempt; no other job times out.
    private func checkOutcomes(_ check: Checker) {
        let deadline = scenario.deadline
        for job in 0..<jobCount {
            let plan = scenario.jobs[job]
            let outcome = outcome(job)
            let attempts = bodies.attempts[job]
            let code = outcome.error?.code
            check.expect(outcome.id == plan.id, "outcome \(job) is \(outcome.id)")
            check.expect((outcome.status == .succeeded) == (outcome.error == nil), "\(plan.id): \(outcome)")
            check.expect(code != .timedOut || outcome.status == .timedOut, "\(plan.id): \(outcome)")
            guard let first = attempts.first, let last = attempts.last else {
                checkNeverStarted(job, check)
                continue
            }
            check.expect(outcome.startedAt == first.enteredAt, "\(plan.id) started at \(outcome.startedAt.map { "\($0)" } ?? "-"); its body at \(first.enteredAt)")
            if let deadline { check.expect(first.enteredAt < deadline, "\(plan.id) started after the deadline") }
            switch plan.behaviour {
            case .hangs:
                let limit = first.enteredAt + plan.timeout!
                let ownTimeout = deadline.map { limit < $0 } ?? true
                check.expect(outcome.status == .timedOut && code == (ownTimeout ? JobError.Code.timedOut : .deadlineExceeded),
                    "\(plan.id) hangs past its \(ownTimeout ? "timeout" : "deadline") but ended \(outcome)")
                check.expect(attempts.count == 1, "\(plan.id) timed out but was tried \(attempts.count) times")
                check.expect(last.end == .cancelled, "\(plan.id) timed out but its body was not cancelled")
                let end = ownTimeout ? limit : deadline!
                check.expect(outcome.endedAt == end, "\(plan.id) timed out at \(outcome.endedAt.map { "\($0)" } ?? "-"), expected \(end)")
                check.expect(last.endedAt == outcome.endedAt, "\(plan.id)'s body saw the cancellation at \(last.endedAt.map { "\($0)" } ?? "-")")
            case .slow(let seconds):
                // Ends at the first of: its sleep, its timeout, the deadline.
                let done = first.enteredAt + .seconds(seconds)
                let limit = plan.timeout.map { first.enteredAt + $0 }
                let end = min(done, limit ?? done, deadline ?? done)
                check.expect(attempts.count == 1, "\(plan.id) never throws but was tried \(attempts.count) times")
                check.expect(outcome.endedAt == end && last.endedAt == end, "\(plan.id) ended at \(outcome.endedAt.map { "\($0)" } ?? "-"), expected \(end)")
                if end == done {
                    check.expect(outcome.status == .succeeded && last.end == .returned, "\(plan.id) returned within its time but ended \(outcome)")
                } else {
                    check.expect(outcome.status == .timedOut && code == (end == limit ? JobError.Code.timedOut : .deadlineExceeded) && last.end == .cancelled,
                        "\(plan.id) was still sleeping at \(end == limit ? "its timeout" : "the deadline") but ended \(outcome)")
                }
            case .succeeds, .flaky, .fails:
                // The attempt on which the body returns, if it ever does.
                let succeedsOn: Int?
                switch plan.behaviour {
                case .flaky(let failures): succeedsOn = failures + 1
                case .fails: succeedsOn = nil
                default: succeedsOn = 1
                }
                if attempts.count == succeedsOn {
                    check.expect(outcome.status == .succeeded && last.end == .returned, "\(plan.id) returned on attempt \(attempts.count) but ended \(outcome)")
                    check.expect(outcome.endedAt == last.endedAt, "\(plan.id) ended at \(outcome.endedAt.map { "\($0)" } ?? "-"), its body at \(last.endedAt.map { "\($0)" } ?? "-")")
                    continue
                }
                check.expect(last.end == .threw, "\(plan.id)'s last attempt \(last.end.map { "\($0)" } ?? "ran")")
                let thrownAt = last.endedAt ?? .zero
                let retryAt = thrownAt + plan.retry.delay(beforeAttempt: last.number + 1)
                if attempts.count == plan.retry.maxAttempts || deadline.map({ retryAt >= $0 }) == true {
                    // Out of attempts, or the retry would end after the deadline: it fails at once.
                    check.expect(outcome.status == .failed && code == .failed, "\(plan.id) threw on its last attempt but ended \(outcome)")
                    check.expect(outcome.endedAt == thrownAt, "\(plan.id) failed at \(outcome.endedAt.map { "\($0)" } ?? "-"), its body at \(thrownAt)")
                    check.expect((outcome.error?.underlying as? InjectedFailure) == InjectedFailure(job: job, attempt: last.number),
                        "\(plan.id) failed with \(outcome.error.map { "\($0)" } ?? "-"), not its last error")
                } else {
                    // Waiting to retry when the deadline passed.
                    check.expect(deadline != nil && outcome.status == .timedOut && code == .deadlineExceeded && outcome.endedAt == deadline,
                        "\(plan.id) was waiting to retry (attempt \(last.number + 1) at \(retryAt)) but ended \(outcome)")
                }
            }
        }
    }

    /// A job whose body was never called: skipped because a need did not succeed or because the
    /// run stopped, or cancelled by the deadline; never without a reason.
    private func checkNeverStarted(_ job: Int, _ check: Checker) {
        let plan = scenario.jobs[job]
        let outcome = outcome(job)
        let error = outcome.error
        check.expect(outcome.attempts == 0 && outcome.startedAt == nil && outcome.endedAt == nil, "\(plan.id) never started: \(outcome)")
        let failedNeeds = plan.needs.filter { report.outcomes[$0].status != .succeeded }
        switch error?.code {
        case .neededJobFailed?:
            check.expect(outcome.status == .skipped, "\(plan.id): \(outcome)")
            // The path is a chain of needs from a job that failed, timed out or was cancelled.
            let path = error?.path.compactMap { scenario.index[$0] } ?? []
            check.expect(path.count >= 2 && path.count == error?.path.count && path.last == job, "\(plan.id) skipped with path \(error?.path ?? [])")
            for (need, dependent) in zip(path, path.dropFirst()) {
                check.expect(scenario.jobs[dependent].needs.contains(need) && report.outcomes[need].status != .succeeded,
                    "\(plan.id)'s path \(error?.path ?? []): \(id(dependent)) does not need \(id(need)), or it succeeded")
            }
            if let origin = path.first {
                let status = report.outcomes[origin].status
                check.expect(status == .failed || status == .timedOut || status == .cancelled,
                    "\(plan.id)'s failure started at \(id(origin)), which ended \(status)")
            }
        case .runStopped?:
            // Named after the first job that failed or timed out: the one that stopped the run.
            check.expect(!scenario.keepGoing && outcome.status == .skipped, "\(plan.id): \(outcome)")
            check.expect(error?.path.count == 2 && error?.path.first != nil && error?.path.first == firstStopped,
                "\(plan.id) skipped because the run stopped, with path \(error?.path ?? []); the first job to fail or time out was \(firstStopped.map { "\($0)" } ?? "none")")
        case .deadlineExceeded?:
            check.expect(scenario.deadline != nil && outcome.status == .cancelled && report.status == .timedOut,
                "\(plan.id): \(outcome)")
        default:
            check.expect(false, "\(plan.id) never started, for no reason: \(outcome)")
        }
        if scenario.keepGoing && scenario.deadline == nil {
            check.expect(!failedNeeds.isEmpty && outcome.status == .skipped && error?.code == .neededJobFailed,
                "\(plan.id) never started; needs that did not succeed: \(failedNeeds.map { id($0) }); \(outcome)")
        }
    }

    /// The report's status and duration agree with its jobs; nothing is left sleeping.
    private func checkRun(_ check: Checker) {
        let outcomes = Array(report.outcomes)
        check.expect(outcomes.count == jobCount, "the report has \(outcomes.count) outcomes for \(jobCount) jobs")
        for status in JobStatus.allCases {
            check.expect(report.count(status) == outcomes.filter { $0.status == status }.count, "count(\(status)) disagrees with the outcomes")
        }
        let lastEnd = outcomes.compactMap(\.endedAt).max() ?? .zero
        check.expect(report.duration == lastEnd, "the run took \(report.duration); its last job ended at \(lastEnd)")
        let expected: RunStatus
        if let deadline = scenario.deadline, report.duration >= deadline {
            expected = .timedOut
            check.expect(report.duration == deadline, "the run went on after its deadline, to \(report.duration)")
        } else if outcomes.contains(where: { $0.status == .failed || $0.status == .timedOut }) {
            expected = .failed
        } else {
            expected = .succeeded
            check.expect(outcomes.allSatisfy { $0.status == .succeeded }, "no job failed but some did not succeed")
        }
        check.expect(report.status == expected, "the run ended \(report.status), expected \(expected)")
        check.expect(sleepersLeft == 0 && timersLeft.isEmpty, "after the report, \(sleepersLeft) tasks sleep on the clock, until \(timersLeft)")
    }
}
