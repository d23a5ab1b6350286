import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

private struct Boom: Error {}

/// Jobs added while a run runs (dispatch groups): `ctx.addChild`, `waitForChildren`, `value(of:)`.
@Suite(.suiteTimeLimit)
struct ChildJobTests {
    /// The deadlock this design avoids: at `maxConcurrency: 1` the parent holds the only worker
    /// while it waits, unless waiting gives the slot up. Children run one at a time, never
    /// beside their parent.
    @Test(arguments: 0..<20)
    func aParentWaitingOnChildrenDoesNotHoldTheOnlySlot(repetition: Int) async throws {
        let activity = ConcurrencyMeter()
        var workflow = Workflow()
        let parent = try workflow.add("attachments") { ctx in
            activity.enter()
            for index in 1...4 {
                try ctx.addChild(JobID("download-\(index)")) { _ in
                    activity.enter()
                    defer { activity.leave() }
                    return index * 10
                }
            }
            activity.leave()
            let outcomes = try await ctx.waitForChildren()
            activity.enter()
            defer { activity.leave() }
            return outcomes.filter { $0.status == .succeeded }.count
        }
        try workflow.add("sibling") { _ in
            activity.enter()
            activity.leave()
        }
        let report = try #require(await BoundedWait.report(try workflow.start(RunOptions(maxConcurrency: 1))))
        #expect(report.status == .succeeded)
        #expect(report.value(of: parent) == 4)
        #expect(activity.peak == 1, "never two bodies at once at maxConcurrency 1")
        #expect(report.outcomes.count == 6)
        for index in 1...4 {
            let outcome = try #require(report.outcome(of: JobID("attachments/download-\(index)")))
            #expect(outcome.status == .succeeded)
            #expect(outcome.parent == "attachments")
            #expect(try #require(outcome.endedAt) <= (report.outcome(of: "attachments")?.endedAt ?? .zero))
        }
    }

    @Test(arguments: 1...3, 0..<5)
    func aParentReadsEachChildsValueAndChildrenNeedSiblings(maxConcurrency: Int, repetition: Int) async throws {
        let order = LockedValue<[String]>([])
        var workflow = Workflow()
        let parent = try workflow.add("p") { ctx in
            let a = try ctx.addChild("a") { _ in order.withLock { $0.append("a") }; return 1 }
            let b = try ctx.addChild("b", needs: ["a"]) { ctx in
                order.withLock { $0.append("b") }
                return try await ctx.value(of: a) + 1
            }
            return try await ctx.value(of: b) * 100 + ctx.value(of: a)
        }
        let report = try #require(await BoundedWait.report(try workflow.start(RunOptions(maxConcurrency: maxConcurrency))))
        #expect(report.value(of: parent) == 201)
        #expect(order.value == ["a", "b"])
    }

    @Test(arguments: 0..<10)
    func aFailedChildsValueThrowsItsError(repetition: Int) async throws {
        var workflow = Workflow()
        let parent = try workflow.add("p") { ctx in
            let child = try ctx.addChild("c") { _ -> Int in throw Boom() }
            do {
                _ = try await ctx.value(of: child)
                return "no error"
            } catch let error as JobError {
                return "\(error.code) \(error.underlying is Boom)"
            }
        }
        let report = try #require(await BoundedWait.report(try workflow.start(RunOptions(keepGoing: true))))
        #expect(report.value(of: parent) == "failed true")
        #expect(report.outcome(of: "p/c")?.status == .failed)
        #expect(report.status == .failed, "a child that failed is a job that failed")
    }

    /// A parent that returns without waiting still ends after its children, and the jobs that
    /// need it start after them too.
    @Test(arguments: 1...2, 0..<10)
    func aJobEndsAfterItsChildren(maxConcurrency: Int, repetition: Int) async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        try workflow.add("p") { ctx in
            try ctx.addChild("slow") { _ in try await clock.sleep(for: .seconds(5)) }
        }
        try workflow.add("after", needs: ["p"]) { _ in }
        let run = try workflow.start(RunOptions(maxConcurrency: maxConcurrency, clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 1))
        #expect(run.snapshot.running.contains("p/slow"))
        clock.advance(by: .seconds(5))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.outcome(of: "p")?.endedAt == .seconds(5))
        #expect(report.outcome(of: "after")?.startedAt == .seconds(5))
        #expect(report.criticalPath.last == "after")
    }

    @Test(arguments: [false, true], 0..<10)
    func cancellingAParentCancelsItsChildren(byID: Bool, repetition: Int) async throws {
        let log = CallLog()
        let (arrived, gate) = (Gate(), Gate())
        arrived.open()
        var workflow = Workflow()
        workflow.lane("one", width: 1)
        try workflow.add("p") { ctx in
            try ctx.addChild("running", lane: "one") { _ in
                log.called("running")
                await arrived.wait()
                do { try await Task.sleep(for: .seconds(3600)) } catch { log.sawCancellation("running"); throw error }
            }
            try ctx.addChild("queued", lane: "one") { _ in log.called("queued") }
            try await ctx.waitForChildren()
            log.called("p-resumed")
            await gate.wait()
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 3, gracePeriod: .seconds(3600)))
        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        if byID { run.cancel("p") } else { run.cancel() }
        let report = try #require(await BoundedWait.report(run))
        #expect(report.outcome(of: "p/running")?.status == .cancelled)
        #expect(log.sawCancellation(of: "p/running") || log.sawCancellation(of: "running"))
        #expect(report.outcome(of: "p/queued")?.status == .cancelled)
        #expect(log.calls("queued") == 0)
        #expect(log.calls("p-resumed") == 0, "waitForChildren throws when the parent is cancelled")
        #expect(report.outcome(of: "p")?.status == .cancelled)
        gate.open()
    }

    @Test(arguments: 0..<10)
    func aFailingParentCancelsChildrenItDidNotWaitFor(repetition: Int) async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        try workflow.add("p") { ctx in
            try ctx.addChild("slow") { _ in try await clock.sleep(for: .seconds(100)) }
            try await clock.sleep(for: .seconds(1))
            throw Boom()
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 2, clock: clock))
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))
        clock.advance(by: .seconds(1))
        let report = try #require(await BoundedWait.report(run))
        #expect(report.outcome(of: "p")?.status == .failed)
        #expect(report.outcome(of: "p")?.error?.underlying is Boom)
        #expect(report.outcome(of: "p/slow")?.status == .cancelled)
    }

    @Test func addChildRejectsWhatCouldNeverRun() async throws {
        let errors = LockedValue<[WorkflowError.Code]>([])
        var workflow = Workflow()
        workflow.lane("serial", width: 1)
        try workflow.add("p", lane: "serial") { ctx in
            func attempt(_ add: () throws -> Void) {
                do { try add() } catch let error as WorkflowError { errors.withLock { $0.append(error.code) } } catch {}
            }
            attempt { try ctx.addChild("no-lane", lane: "undeclared") { _ in } }
            attempt { try ctx.addChild("unknown-need", needs: ["nobody"]) { _ in } }
            attempt { try ctx.addChild("bad-timeout", timeout: .zero) { _ in } }
            attempt { try ctx.addChild("twice") { _ in } }
            attempt { try ctx.addChild("twice") { _ in } }
            attempt { try ctx.addChild("needs-parent", needs: ["p"]) { _ in } }
        }
        let report = try await workflow.start().report()
        #expect(errors.value == [.unknownLane, .unknownNeed, .invalidOption, .duplicateJob, .invalidOption])
        #expect(report.outcome(of: "p/twice")?.status == .succeeded)
    }

    /// A parent waiting for its children gives up its lane slot too: a child in its parent's
    /// serial lane runs while the parent waits, and never beside the parent's body.
    @Test(arguments: 1...2, 0..<10)
    func aChildRunsInItsWaitingParentsSerialLane(maxConcurrency: Int, repetition: Int) async throws {
        let activity = ConcurrencyMeter()
        var workflow = Workflow()
        workflow.lane("db", width: 1)
        let parent = try workflow.add("migrate", lane: "db") { ctx in
            activity.enter()
            let step = try ctx.addChild("step", lane: "db") { _ in
                activity.enter()
                defer { activity.leave() }
                return 3
            }
            activity.leave()
            let value = try await ctx.value(of: step)
            activity.enter()
            defer { activity.leave() }
            return value
        }
        try workflow.add("other", lane: "db") { _ in
            activity.enter()
            activity.leave()
        }
        let report = try #require(await BoundedWait.report(try workflow.start(RunOptions(maxConcurrency: maxConcurrency))))
        #expect(report.value(of: parent) == 3)
        #expect(report.status == .succeeded)
        #expect(activity.peak == 1, "one body at a time in a serial lane")
    }

    /// Children of children, at one worker: nothing deadlocks, and every level ends in order.
    @Test(arguments: 0..<10)
    func grandchildrenRunAtOneWorker(repetition: Int) async throws {
        var workflow = Workflow()
        let root = try workflow.add("root") { ctx in
            var handles: [JobHandle<Int>] = []
            for index in 0..<3 {
                handles.append(try ctx.addChild(JobID("c\(index)")) { ctx in
                    for leaf in 0..<3 { try ctx.addChild(JobID("g\(leaf)")) { _ in } }
                    return try await ctx.waitForChildren().count
                })
            }
            var total = 0
            for handle in handles { total += try await ctx.value(of: handle) }
            return total
        }
        let report = try #require(await BoundedWait.report(try workflow.start(RunOptions(maxConcurrency: 1))))
        #expect(report.value(of: root) == 9)
        #expect(report.outcomes.count == 13)
        #expect(report.outcome(of: "root/c1/g2")?.parent == "root/c1")
    }

    /// Children count against their lane's width like any job.
    @Test(arguments: 0..<10)
    func childrenRespectTheirLanesWidth(repetition: Int) async throws {
        let activity = ConcurrencyMeter()
        var workflow = Workflow()
        workflow.lane("network", width: 2)
        try workflow.add("p") { ctx in
            for index in 0..<8 {
                try ctx.addChild(JobID("d\(index)"), lane: "network") { _ in
                    activity.enter()
                    await Task.yield()
                    activity.leave()
                }
            }
        }
        let report = try #require(await BoundedWait.report(try workflow.start(RunOptions(maxConcurrency: 4))))
        #expect(report.count(.succeeded) == 9)
        #expect(activity.peak <= 2)
    }

    /// A retried parent's children are named after the attempt.
    @Test func aRetriedParentsChildrenAreNamedByAttempt() async throws {
        var workflow = Workflow()
        try workflow.add("p", retry: .fixed(attempts: 2, delay: .zero)) { ctx in
            try ctx.addChild("c") { _ in }
            try await ctx.waitForChildren()
            if ctx.attempt == 1 { throw Boom() }
        }
        let report = try await workflow.start().report()
        #expect(report.outcome(of: "p")?.status == .succeeded)
        #expect(report.outcome(of: "p")?.attempts == 2)
        #expect(report.outcome(of: "p/c")?.status == .succeeded)
        #expect(report.outcome(of: "p#2/c")?.status == .succeeded)
    }

    /// A child cancelled while a worker idles and every other slot is taken: the idle worker
    /// makes room for the parent, which resumes (the run would hang otherwise). `blocked` waits
    /// for `gated`, which holds the other worker until the end. (This test used to block the
    /// child with a need on a job that needs the parent, which `addChild` now rejects.)
    @Test(arguments: 0..<20)
    func aParentResumesWhenItsLastChildIsCancelledWhileAWorkerIdles(repetition: Int) async throws {
        let gate = Gate()
        var workflow = Workflow()
        try workflow.add("gated") { _ in await gate.wait() }
        let p = try workflow.add("p") { ctx in
            try ctx.addChild("quick") { _ in }
            try ctx.addChild("blocked", needs: ["gated"]) { _ in }
            return try await ctx.waitForChildren().map(\.status)
        }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 2, keepGoing: true))
        await events.wait(for: .finished("p/quick", .succeeded))
        run.cancel("p/blocked")
        await events.wait(for: .finished("p", .succeeded))  // before `gated` frees its worker
        gate.open()
        let report = try #require(await BoundedWait.report(run))
        #expect(report.value(of: p) == [.succeeded, .cancelled])
        #expect(report.outcome(of: "gated")?.status == .succeeded)
    }

    /// A child in an ordered lane does not wait behind the lane's jobs that wait for its parent.
    @Test(arguments: 0..<10)
    func aChildDoesNotQueueBehindLaneJobsWaitingForItsParent(repetition: Int) async throws {
        var workflow = Workflow()
        workflow.lane("disk", width: 1)
        try workflow.add("needs-p", needs: ["p"], lane: "disk") { _ in }
        try workflow.add("p") { ctx in
            try await ctx.value(of: try ctx.addChild("write", lane: "disk") { _ in 1 })
        }
        let report = try #require(await BoundedWait.report(try workflow.start(RunOptions(maxConcurrency: 2))))
        #expect(report.status == .succeeded)
    }
}
