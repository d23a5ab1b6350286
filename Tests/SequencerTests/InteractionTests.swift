import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

private struct Boom: Error {}

/// Lets other tasks run for a while, without sleeping: for tests that must give a wrong
/// behaviour the chance to show, where the right one has no event to wait for.
private func yieldALot(_ times: Int = 500) async {
    for _ in 0..<times { await Task.yield() }
}

/// Every job of a finished run ended: nothing is left running or pending.
private func expectAllEnded(_ run: Run, _ report: RunReport, sourceLocation: SourceLocation = #_sourceLocation) {
    let snapshot = run.snapshot
    #expect(snapshot.isFinished, sourceLocation: sourceLocation)
    #expect(snapshot.running.isEmpty, sourceLocation: sourceLocation)
    #expect(snapshot.pending == 0, sourceLocation: sourceLocation)
    #expect(snapshot.finished == snapshot.total, sourceLocation: sourceLocation)
    #expect(snapshot.total == report.outcomes.count, sourceLocation: sourceLocation)
}

/// How the new features meet: abandoned bodies, coalescing keys and child jobs, with timeouts,
/// retries, the deadline, cancellation, `keepGoing` and small `maxConcurrency`.
///
/// Written by a review of the engine; the tests whose comments describe a bug failed (or hung
/// until the time limit) before the fixes that followed the review.
@Suite(.suiteTimeLimit)
struct InteractionTests {
    // MARK: - Coalescing meets abandonment and children

    /// A joiner whose leader is abandoned ends once, timed out as of the leader's timeout, traced
    /// to the leader. It does no work while it waits, so its lane slot goes to others at once.
    @Test(arguments: 0..<20)
    func aJoinerOfAnAbandonedLeaderEndsOnceWithTheLeadersTimeout(repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, arrived, leading) = (Gate(), Gate(), Gate())
        arrived.open()
        let log = CallLog()
        var workflow = Workflow()
        workflow.lane("disk", width: 1)
        try workflow.add("leader", timeout: .seconds(5), coalesce: "k") { _ in
            leading.open()
            await arrived.wait()
            await gate.wait()  // ignores its timeout
            return "late"
        }
        try workflow.add("tick") { _ in await leading.wait() }
        let joiner = try workflow.add("joiner", needs: ["tick"], lane: "disk", coalesce: "k") { _ in
            log.called("joiner")
            return "own"
        }
        try workflow.add("later", needs: ["tick"], lane: "disk") { _ in log.called("later") }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 3, keepGoing: true, clock: clock, gracePeriod: .seconds(1)))

        await events.wait(for: .started("joiner"))
        // The joiner gives its lane slot up when it joins, so `later` starts before any time
        // passes; the clock moves only once it has (a loaded machine ran it late, at 5 s, when
        // the clock moved first). Were the slot kept, this would wait until the time limit.
        await events.wait(for: .started("later"))
        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the leader's timeout
        clock.advance(by: .seconds(5))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the grace period
        clock.advance(by: .seconds(1))
        let report = try #require(await BoundedWait.report(run))
        await events.drain()

        let leader = try #require(report.outcome(of: "leader"))
        #expect(leader.status == .timedOut && leader.endedAt == .seconds(5))
        let joined = try #require(report.outcome(of: "joiner"))
        #expect(joined.status == .timedOut)
        #expect(joined.error?.code == .timedOut)
        #expect(joined.error?.origin == "leader")
        #expect(joined.attempts == 0)
        #expect(joined.endedAt == .seconds(5))
        #expect(report.value(of: joiner) == nil)
        #expect(log.calls("joiner") == 0)
        #expect(report.outcome(of: "later")?.status == .succeeded)
        #expect(report.outcome(of: "later")?.startedAt == .zero, "the joiner gave its lane slot up when it joined")
        #expect(events.seen.filter { if case .finished("joiner", _) = $0 { true } else { false } }.count == 1)
        expectAllEnded(run, report)
        gate.open()
    }

    /// A child that leads a key shares its result with a workflow job that joined it; cancelling
    /// the child's parent cancels the shared body, so the joiner ends cancelled too (as the
    /// Coalescing article says of a cancelled leader).
    @Test(arguments: [false, true], 0..<10)
    func aChildCanLeadAKeyAndItsParentsCancellationReachesItsJoiners(cancelParent: Bool, repetition: Int) async throws {
        let (gate, leading) = (Gate(), Gate())
        let calls = LockedValue(0)
        var workflow = Workflow()
        let parent = try workflow.add("screen") { ctx in
            let child = try ctx.addChild("fetch", coalesce: "config") { _ in
                calls.withLock { $0 += 1 }
                leading.open()
                await gate.wait()
                try Task.checkCancellation()
                return "v1"
            }
            return try await ctx.value(of: child)
        }
        try workflow.add("tick") { _ in await leading.wait() }
        let widget = try workflow.add("widget", needs: ["tick"], coalesce: "config") { _ in
            calls.withLock { $0 += 1 }
            return "v2"
        }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 3, keepGoing: true))
        await events.wait(for: .started("widget"))
        if cancelParent { run.cancel("screen") }
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(calls.value == 1)
        if cancelParent {
            #expect(report.outcome(of: "screen")?.status == .cancelled)
            #expect(report.outcome(of: "screen/fetch")?.status == .cancelled)
            let joined = try #require(report.outcome(of: "widget"))
            #expect(joined.status == .cancelled)
            #expect(joined.error?.origin == "screen/fetch")
        } else {
            #expect(report.status == .succeeded)
            #expect(report.value(of: parent) == "v1")
            #expect(report.value(of: widget) == "v1")
            #expect(report.outcome(of: "widget")?.attempts == 0)
        }
        expectAllEnded(run, report)
    }

    /// `cancel(id)` of a child that joined a running job ends only that child, at once: its
    /// parent's `value(of:)` throws, the leader goes on and the parent resumes.
    @Test(arguments: 0..<20)
    func cancellingAChildThatJoinedEndsOnlyIt(repetition: Int) async throws {
        let (gate, leading) = (Gate(), Gate())
        let calls = LockedValue(0)
        var workflow = Workflow()
        let leader = try workflow.add("fetch", coalesce: "config") { _ in
            leading.open()
            await gate.wait()
            return "v1"
        }
        let parent = try workflow.add("screen") { ctx in
            await leading.wait()
            let child = try ctx.addChild("config", coalesce: "config") { _ in
                calls.withLock { $0 += 1 }
                return "v2"
            }
            do {
                return try await ctx.value(of: child)
            } catch let error as JobError {
                return "\(error.code)"
            }
        }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 2, keepGoing: true))
        await events.wait(for: .started("screen/config"))
        // A job joins its leader when a worker takes it, in the same step as `.started`.
        run.cancel("screen/config")
        await events.wait(for: .finished("screen/config", .cancelled))
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(calls.value == 0)
        #expect(report.value(of: parent) == "cancelled")
        #expect(report.value(of: leader) == "v1")
        #expect(report.outcome(of: "screen/config")?.attempts == 0)
        #expect(report.outcome(of: "screen")?.status == .succeeded)
        expectAllEnded(run, report)
    }

    /// At one worker: a workflow job leads a key and waits for its own child, a child of another
    /// job joins it (at a higher priority, so it is taken while the leader is suspended), and a
    /// grandchild takes the finished result. One body for the key, never two bodies at once,
    /// no deadlock.
    @Test(arguments: 1...2, 0..<10)
    func nestedWaitsAndCoalescingAtOneWorker(maxConcurrency: Int, repetition: Int) async throws {
        let calls = LockedValue(0)
        let activity = ConcurrencyMeter()
        var workflow = Workflow()
        let fetch = try workflow.add("fetch", coalesce: "config") { ctx in
            activity.enter()
            calls.withLock { $0 += 1 }
            let part = try ctx.addChild("download") { _ in
                activity.enter()
                defer { activity.leave() }
                return 5
            }
            activity.leave()
            let value = try await ctx.value(of: part)
            activity.enter()
            defer { activity.leave() }
            return value
        }
        let screen = try workflow.add("screen") { ctx in
            activity.enter()
            let first = try ctx.addChild("config", priority: .userInitiated, coalesce: "config") { _ in
                calls.withLock { $0 += 1 }
                return 6
            }
            let second = try ctx.addChild("nested") { ctx in
                let inner = try ctx.addChild("config", coalesce: "config") { _ in
                    calls.withLock { $0 += 1 }
                    return 7
                }
                return try await ctx.value(of: inner) * 10
            }
            activity.leave()
            let total = try await ctx.value(of: first) + ctx.value(of: second)
            activity.enter()
            defer { activity.leave() }
            return total
        }
        let run = try workflow.start(RunOptions(maxConcurrency: maxConcurrency))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .succeeded)
        #expect(calls.value == 1, "one body for the key")
        let shared = try #require(report.value(of: fetch))
        #expect(report.value(of: screen) == shared * 11)
        if maxConcurrency == 1 { #expect(activity.peak == 1) }
        expectAllEnded(run, report)
    }

    /// A job with a key cancelled just after it was taken ends cancelled. (Joining used to be a
    /// separate locked step after the take; a cancel in between was ignored and the job ended
    /// with the leader's success. Joining now happens in the take itself.) The parent cancels its
    /// child right after `addChild` returned, the moment that used to fall in the window.
    @Test(arguments: 0..<20)
    func aJoinerCancelledAsItIsTakenEndsCancelled(repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, leading, runKnown) = (Gate(), Gate(), Gate())
        let runBox = LockedValue<Run?>(nil)
        let calls = LockedValue(0)
        var workflow = Workflow()
        let leader = try workflow.add("fetch", coalesce: "config") { _ in
            leading.open()
            await gate.wait()
            return "v1"
        }
        let parent = try workflow.add("screen") { ctx in
            await leading.wait()
            await runKnown.wait()   // the test has stored the run, so the cancel below reaches it
            let child = try ctx.addChild("config", coalesce: "config") { _ in
                calls.withLock { $0 += 1 }
                return "v2"
            }
            runBox.value?.cancel("screen/config")
            gate.open()
            do {
                return try await ctx.value(of: child)
            } catch let error as JobError {
                return "\(error.code)"
            }
        }
        // A grace period that never passes: the joiner must end cancelled without being abandoned.
        let run = try workflow.start(RunOptions(maxConcurrency: 3, keepGoing: true, clock: clock, gracePeriod: .seconds(3600)))
        runBox.withLock { $0 = run }
        runKnown.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(report.value(of: leader) == "v1")
        #expect(calls.value == 0)
        #expect(report.outcome(of: "screen/config")?.status == .cancelled, "cancelled while it ran")
        #expect(report.value(of: parent) == "cancelled")
    }

    // MARK: - Children meet timeouts, abandonment and the deadline

    /// A parent whose timeout passes while it waits for its children: it is timed out as of its
    /// timeout, its children are cancelled (the one not started never starts), `waitForChildren`
    /// throws, and the jobs that need it are skipped. At one worker, so the child holds the slot.
    @Test(arguments: 0..<20)
    func aParentTimingOutWhileWaitingCancelsItsChildren(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("p", timeout: .seconds(5)) { ctx in
            try ctx.addChild("slow") { _ in try await clock.sleep(for: .seconds(100)) }
            try ctx.addChild("queued", needs: ["slow"]) { _ in log.called("queued") }
            do {
                try await ctx.waitForChildren()
            } catch {
                log.sawCancellation("p")
                throw error
            }
            log.called("p-resumed")
        }
        try workflow.add("after", needs: ["p"]) { _ in log.called("after") }
        let run = try workflow.start(RunOptions(maxConcurrency: 1, keepGoing: true, clock: clock, gracePeriod: .seconds(1)))
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))  // p's timeout and the child
        clock.advance(by: .seconds(5))
        let report = try #require(await BoundedWait.report(run))
        let parent = try #require(report.outcome(of: "p"))
        #expect(parent.status == .timedOut)
        #expect(parent.error?.code == .timedOut)
        #expect(parent.endedAt == .seconds(5))
        #expect(report.outcome(of: "p/slow")?.status == .cancelled)
        #expect(report.outcome(of: "p/slow")?.endedAt == .seconds(5))
        #expect(report.outcome(of: "p/queued")?.status == .cancelled)
        #expect(report.outcome(of: "after")?.status == .skipped)
        #expect(log.calls("queued") == 0 && log.calls("after") == 0)
        #expect(log.sawCancellation(of: "p"))
        #expect(log.calls("p-resumed") == 0)
        expectAllEnded(run, report)
    }

    /// A suspended parent and its child both ignore cancellation: after the grace period both are
    /// abandoned, the only worker slot comes back, and the next job runs. (A leaked slot would
    /// hang the run here.)
    @Test(arguments: 0..<20)
    func abandoningASuspendedParentAndItsChildFreesTheOnlyWorker(repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, arrived) = (Gate(), Gate())
        arrived.open()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("p", timeout: .seconds(5)) { ctx in
            try ctx.addChild("stuck") { _ in
                log.called("stuck")
                await arrived.wait()
                await gate.wait()
            }
            try await ctx.waitForChildren()
            log.called("p-went-on")
        }
        try workflow.add("other", priority: .background) { _ in log.called("other") }
        let run = try workflow.start(RunOptions(maxConcurrency: 1, keepGoing: true, clock: clock, gracePeriod: .seconds(1)))
        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // p's timeout
        clock.advance(by: .seconds(5))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the grace period
        #expect(log.calls("other") == 0, "the child holds the only worker during the grace period")
        clock.advance(by: .seconds(1))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.outcome(of: "p")?.status == .timedOut)
        #expect(report.outcome(of: "p")?.endedAt == .seconds(5))
        #expect(report.outcome(of: "p/stuck")?.status == .cancelled)
        #expect(report.outcome(of: "p/stuck")?.endedAt == .seconds(6))
        #expect(report.outcome(of: "other")?.status == .succeeded)
        #expect(report.outcome(of: "other")?.startedAt == .seconds(6))
        #expect(log.calls("stuck") == 1 && log.calls("other") == 1)
        #expect(log.calls("p-went-on") == 0)
        expectAllEnded(run, report)
        gate.open()
    }

    /// The deadline passes while a parent is suspended on a child that ignores cancellation: the
    /// report still comes, a grace period later; the parent is timed out as of the deadline and
    /// the child that never started is never called.
    @Test(arguments: 0..<20)
    func theDeadlineEndsARunWhoseParentWaitsOnAStubbornChild(repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, arrived) = (Gate(), Gate())
        arrived.open()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("p") { ctx in
            try ctx.addChild("stuck") { _ in
                await arrived.wait()
                await gate.wait()
            }
            try ctx.addChild("never", needs: ["stuck"]) { _ in log.called("never") }
            try await ctx.waitForChildren()
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 1, deadline: .seconds(10), clock: clock, gracePeriod: .seconds(2)))
        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the deadline
        clock.advance(by: .seconds(10))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))  // the grace period
        clock.advance(by: .seconds(2))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .timedOut)
        let parent = try #require(report.outcome(of: "p"))
        #expect(parent.status == .timedOut)
        #expect(parent.error?.code == .deadlineExceeded)
        #expect(parent.endedAt == .seconds(10))
        #expect(report.outcome(of: "p/never")?.status == .cancelled)
        #expect(report.outcome(of: "p/never")?.error?.code == .deadlineExceeded)
        #expect(log.calls("never") == 0)
        #expect(report.outcome(of: "p/stuck") != nil)
        expectAllEnded(run, report)
        gate.open()
    }

    /// `JobStatus.timedOut`: "its timeout, or the run's deadline, passed while it ran". A child
    /// running at the deadline is a job running at the deadline, but it is reported cancelled:
    /// `cancelAll` cancels the parent first, whose `cancelDescendants` puts the child in
    /// `cancelRequested`, and `cancelAll` then skips it, so it never gets its deadline limit.
    @Test(arguments: [false, true], 0..<10)
    func aChildRunningAtTheDeadlineIsTimedOutLikeAnyRunningJob(stubborn: Bool, repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, arrived) = (Gate(), Gate())
        arrived.open()
        var workflow = Workflow()
        try workflow.add("p") { ctx in
            try ctx.addChild("child") { _ in
                if stubborn {
                    await arrived.wait()
                    await gate.wait()
                } else {
                    try await clock.sleep(for: .seconds(100))
                }
            }
            try await ctx.waitForChildren()
        }
        try workflow.add("solo") { _ in try await clock.sleep(for: .seconds(100)) }
        let run = try workflow.start(RunOptions(maxConcurrency: 2, deadline: .seconds(10), clock: clock, gracePeriod: .seconds(1)))
        if stubborn { try #require(await BoundedWait.arrivals(arrived, atLeast: 1)) }
        try #require(await BoundedWait.sleepers(clock, atLeast: stubborn ? 2 : 3))  // deadline, solo (and child)
        clock.advance(by: .seconds(10))
        if stubborn {
            // The grace period's timer, not solo's cancelled sleep, which may not have gone yet.
            try #require(await BoundedWait.sleeper(clock, until: .seconds(11)))
            clock.advance(by: .seconds(1))
        }
        let report = try #require(await BoundedWait.report(run))
        let solo = try #require(report.outcome(of: "solo"))
        #expect(solo.status == .timedOut && solo.error?.code == .deadlineExceeded)
        let parent = try #require(report.outcome(of: "p"))
        #expect(parent.status == .timedOut && parent.error?.code == .deadlineExceeded)
        let child = try #require(report.outcome(of: "p/child"))
        #expect(child.status == .timedOut, "like 'solo', it was running at the deadline")
        #expect(child.error?.code == .deadlineExceeded)
        #expect(child.endedAt == .seconds(10))
        gate.open()
    }

    // MARK: - Children meet retries, keepGoing and cancellation

    /// A parent's failed attempt cancels the children still running; they end before the retry,
    /// which adds its own children under `p#2/`.
    @Test(arguments: 0..<20)
    func retryingAParentCancelsTheChildrenOfItsFailedAttemptFirst(repetition: Int) async throws {
        let clock = ManualClock()
        let started = Gate()
        let log = CallLog()
        var workflow = Workflow()
        let parent = try workflow.add("p", retry: .fixed(attempts: 2, delay: .seconds(1))) { ctx in
            let attempt = ctx.attempt
            let child = try ctx.addChild("slow") { _ in
                log.called("slow", attempt: attempt)
                if attempt == 1 {
                    started.open()
                    do { try await clock.sleep(for: .seconds(100)) } catch { log.sawCancellation("slow"); throw error }
                }
                return attempt
            }
            if attempt == 1 {
                await started.wait()
                throw Boom()
            }
            return try await ctx.value(of: child)
        }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 2, clock: clock, gracePeriod: .seconds(60)))
        await events.wait(for: .finished("p/slow", .cancelled))
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))  // the child's grace timer and the retry delay
        clock.advance(by: .seconds(1))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.value(of: parent) == 2)
        #expect(report.outcome(of: "p")?.attempts == 2)
        #expect(log.attempts("slow") == [1, 2])
        #expect(log.sawCancellation(of: "slow"))
        let first = try #require(report.outcome(of: "p/slow"))
        let second = try #require(report.outcome(of: "p#2/slow"))
        #expect(first.status == .cancelled && first.endedAt == .zero)
        #expect(second.status == .succeeded && second.startedAt == .seconds(1))
        expectAllEnded(run, report)
    }

    /// `keepGoing: false` and a failing child: the run stops (the sibling waiting for the lane is
    /// skipped, never called), the waiting parent still resumes and sees its children's outcomes,
    /// and the job that needs it is skipped.
    @Test(arguments: 1...2, 0..<10)
    func aFailingChildStopsTheRunButItsParentStillResumes(maxConcurrency: Int, repetition: Int) async throws {
        let log = CallLog()
        var workflow = Workflow()
        workflow.lane("one", width: 1)
        let parent = try workflow.add("p") { ctx in
            try ctx.addChild("bad", lane: "one") { _ in throw Boom() }
            try ctx.addChild("next", lane: "one") { _ in log.called("next") }
            return try await ctx.waitForChildren().map(\.status)
        }
        try workflow.add("after", needs: ["p"]) { _ in log.called("after") }
        let run = try workflow.start(RunOptions(maxConcurrency: maxConcurrency))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.status == .failed)
        #expect(report.value(of: parent) == [.failed, .skipped])
        #expect(report.outcome(of: "p/next")?.error?.code == .runStopped)
        #expect(report.outcome(of: "after")?.status == .skipped)
        #expect(log.calls("next") == 0 && log.calls("after") == 0)
        expectAllEnded(run, report)
    }

    /// A child added after the run stopped on a failure never runs. Like the jobs pending when
    /// the run stopped, it should be skipped with `.runStopped` (or `addChild` should throw); it
    /// is reported cancelled with `.cancelled`, as if someone had cancelled it.
    @Test(arguments: 0..<10)
    func aChildAddedAfterAFailureStoppedTheRunIsSkipped(repetition: Int) async throws {
        let gate = Gate()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("p") { ctx in
            await gate.wait()
            _ = try? ctx.addChild("late") { _ in log.called("late") }
        }
        try workflow.add("bad") { _ in throw Boom() }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 2))
        await events.wait(for: .finished("bad", .failed))
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(log.calls("late") == 0)
        if let late = report.outcome(of: "p/late") {
            #expect(late.status == .skipped)
            #expect(late.error?.code == .runStopped)
        }
        #expect(report.count(.cancelled) == 0, "nobody cancelled anything")
    }

    /// `addChild` after the run (or the job) was cancelled throws, and nothing is added; the body
    /// that ignored the cancellation and returned within the grace period still ends the run.
    @Test(arguments: [false, true], 0..<10)
    func addChildAfterCancellationThrows(byID: Bool, repetition: Int) async throws {
        let clock = ManualClock()
        let (gate, arrived) = (Gate(), Gate())
        arrived.open()
        let log = CallLog()
        var workflow = Workflow()
        let parent = try workflow.add("p") { ctx in
            await arrived.wait()
            await gate.wait()
            do {
                try ctx.addChild("late") { _ in log.called("late") }
                return "added"
            } catch let error as WorkflowError {
                return "\(error.code)"
            }
        }
        let run = try workflow.start(RunOptions(clock: clock, gracePeriod: .seconds(60)))
        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        if byID { run.cancel("p") } else { run.cancel() }
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(report.value(of: parent) == "\(WorkflowError.Code.invalidOption)")
        #expect(report.outcome(of: "p/late") == nil)
        #expect(log.calls("late") == 0)
        expectAllEnded(run, report)
    }

    // MARK: - Bugs: hangs

    /// A child with its parent's coalescing key joins its parent (a running job with the key):
    /// the parent waits for the child (explicitly here, and implicitly anyway: a job ends after
    /// its children) and the child waits for the parent to end. The run never reports.
    /// Whatever the fix (the child runs its own body, or `addChild` throws), the run must end.
    @Test(arguments: [false, true])
    func aChildWithItsParentsKeyDoesNotDeadlock(waits: Bool) async throws {
        var workflow = Workflow()
        try workflow.add("config", coalesce: "config") { ctx in
            let child: JobHandle<String>
            do {
                child = try ctx.addChild("refresh", coalesce: "config") { _ in "from child" }
            } catch {
                return "rejected"
            }
            return waits ? try await ctx.value(of: child) : "did not wait"
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        let report = try #require(await BoundedWait.report(run), "the run never ended")
        #expect(report.outcome(of: "config") != nil)
    }

    /// Two parents fill a lane of width 2 and each adds a child in that lane: a waiting parent
    /// keeps its lane slot, so neither child is ever admitted and neither parent ever ends.
    /// `addChild` refuses this only for width 1 (`laneOrderDeadlock`).
    @Test
    func parentsFillingALaneDoNotDeadlockTheirChildren() async throws {
        var workflow = Workflow()
        workflow.lane("network", width: 2)
        for name in ["a", "b"] {
            try workflow.add(JobID(name), lane: "network") { ctx in
                do {
                    let child = try ctx.addChild("download", lane: "network") { _ in 1 }
                    return try await ctx.value(of: child)
                } catch let error as WorkflowError {
                    return error.code == .laneOrderDeadlock ? -1 : -2
                }
            }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 4))
        let report = try #require(await BoundedWait.report(run), "the run never ended")
        #expect(report.outcomes.count >= 2)
    }

    // MARK: - Bugs: concurrent waits in one body

    /// A body that reads two children's values concurrently (a task group, `async let`): the
    /// second wait finds the parent's worker already suspended, `waitForChildren` returns true
    /// ("already done") and `value(of:)` throws `.cancelled` for a child that is still running
    /// and will succeed.
    @Test(arguments: 0..<20)
    func aBodyCanWaitForTwoChildrenAtOnce(repetition: Int) async throws {
        let (gate, childrenRunning, waiting) = (Gate(), Gate(), Gate())
        waiting.open()
        let released = LockedValue(false)
        let early = LockedValue<[String]>([])
        var workflow = Workflow()
        let parent = try workflow.add("p") { ctx in
            let a = try ctx.addChild("a") { _ in await childrenRunning.wait(); await gate.wait(); return 1 }
            let b = try ctx.addChild("b") { _ in await childrenRunning.wait(); await gate.wait(); return 2 }
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for handle in [a, b] {
                    group.addTask {
                        await waiting.wait()
                        do {
                            return try await ctx.value(of: handle)
                        } catch {
                            if !released.value { early.withLock { $0.append("\(handle.id): \(error)") } }
                            throw error
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 3))
        try #require(await BoundedWait.arrivals(childrenRunning, atLeast: 2))
        try #require(await BoundedWait.arrivals(waiting, atLeast: 2))
        await yieldALot()
        released.withLock { $0 = true }
        let errorsWhileChildrenRan = early.value
        childrenRunning.open()
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(errorsWhileChildrenRan.isEmpty, "value(of:) threw while its child was still running")
        #expect(report.value(of: parent) == 3)
        #expect(report.status == .succeeded)
    }

    /// The same with `waitForChildren()` beside `value(of:)`: it returns at once, with outcomes
    /// of children that are still running.
    @Test(arguments: 0..<20)
    func waitForChildrenBesideValueOfWaitsForEveryChild(repetition: Int) async throws {
        let (gate, childRunning, waiting) = (Gate(), Gate(), Gate())
        childRunning.open()  // these two count arrivals only
        waiting.open()
        let returnedEarly = LockedValue(false)
        var workflow = Workflow()
        let parent = try workflow.add("p") { ctx in
            let child = try ctx.addChild("c") { _ in await childRunning.wait(); await gate.wait(); return 1 }
            async let value = { () async throws -> Int in
                await waiting.wait()
                return try await ctx.value(of: child)
            }()
            await waiting.wait()
            let outcomes = try await ctx.waitForChildren()
            if outcomes.contains(where: { $0.status != .succeeded }) { returnedEarly.withLock { $0 = true } }
            return try await value
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        try #require(await BoundedWait.arrivals(childRunning, atLeast: 1))
        try #require(await BoundedWait.arrivals(waiting, atLeast: 2))
        await yieldALot()
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(!returnedEarly.value, "waitForChildren returned while a child was running")
        #expect(report.value(of: parent) == 1)
    }

    // MARK: - Bugs: a child's context

    /// `JobContext.id` reads `plan.ids[job]`, and `priority` `plan.priority(of: job)`: for a
    /// child (numbered after the plan's jobs) both index past the plan's arrays and trap.
    @Test
    func aChildsContextKnowsItsIDAndPriority() async {
        await #expect(processExitsWith: .success) {
            var workflow = Workflow()
            try workflow.add("urgent", priority: .userInitiated) { _ in }
            let parent = try workflow.add("p") { ctx in
                let child = try ctx.addChild("c", priority: .userInteractive) { ctx in "\(ctx.id) \(ctx.priority)" }
                return try await ctx.value(of: child)
            }
            let report = await (try workflow.start()).report()
            precondition(report.value(of: parent) == "p/c \(Priority.userInteractive)", "\(String(describing: report.value(of: parent)))")
        }
    }

    // MARK: - Bugs: coalescing meets retries, timeouts meet children

    /// A parent's failed attempt cancels its child that leads a key; the retry adds the same
    /// child, which finds the key's leader ended (cancelled) and takes that "result" at once:
    /// its body never runs, the retry fails with `.cancelled`, and so would every retry. A leader
    /// cancelled for a reason that has nothing to do with the later job poisons the key.
    @Test(arguments: 0..<10)
    func aRetriedParentsCoalescedChildRunsAgain(repetition: Int) async throws {
        let clock = ManualClock()
        let started = Gate()
        let calls = LockedValue(0)
        var workflow = Workflow()
        let parent = try workflow.add("p", retry: .fixed(attempts: 2, delay: .zero)) { ctx in
            let child = try ctx.addChild("config", coalesce: "config") { _ in
                let call = calls.withLock { $0 += 1; return $0 }
                if call == 1 {
                    started.open()
                    try await clock.sleep(for: .seconds(100))
                }
                return "v\(call)"
            }
            if ctx.attempt == 1 {
                await started.wait()
                throw Boom()
            }
            return try await ctx.value(of: child)
        }
        let report = try #require(await BoundedWait.report(try workflow.start(RunOptions(maxConcurrency: 2, clock: clock))))
        #expect(calls.value == 2, "the retry's child ran")
        #expect(report.value(of: parent) == "v2")
        #expect(report.outcome(of: "p")?.status == .succeeded)
    }

    /// "`timeout:` limits each attempt … The timeout is the most time the job may take", and "a
    /// job ends only after all its children". A parent whose body returned and is waiting for its
    /// children implicitly times out too (`execute` stops the attempt's timer after
    /// `settleChildren`; it used to stop it before, and the job ran past its timeout).
    @Test(arguments: 0..<10)
    func aParentsTimeoutCoversTheWaitForItsChildren(repetition: Int) async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        try workflow.add("p", timeout: .seconds(5)) { ctx in
            try ctx.addChild("slow") { _ in try await clock.sleep(for: .seconds(100)) }
            return 1
        }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 2, clock: clock, gracePeriod: .seconds(1)))
        await events.wait(for: .started("p/slow"))
        // Wait until p's timer and its child sleep (p's body has returned or is about to).
        while clock.sleeperCount != 2 { await Task.yield() }
        await yieldALot()
        clock.advance(by: .seconds(5))
        let report = try #require(await BoundedWait.report(run), "p ran past its timeout")
        #expect(report.outcome(of: "p")?.status == .timedOut)
        #expect(report.outcome(of: "p")?.endedAt == .seconds(5))
        #expect(report.outcome(of: "p/slow")?.status == .cancelled)
    }
}


