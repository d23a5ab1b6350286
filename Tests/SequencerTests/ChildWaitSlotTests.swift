@testable import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// How a parent that waits in several places at once (`async let`, a task group) gives its
/// worker slot up and takes it back. Internal state is read only to know when a wait has begun:
/// nothing outside the scheduler can see that.
@Suite(.suiteTimeLimit)
struct ChildWaitSlotTests {
    /// Reduced from a hang of `ChildPropertyTests` (seed 8, `maxConcurrency: 1`). The parent's
    /// only pending wait is satisfied while no worker is free (here its child is cancelled before
    /// it starts; in the sweep a child shared a finished coalesced result), so the wait queues in
    /// `resumable` to take the parent's slot back. Meanwhile a second wait of the same body
    /// begins: the slot is still given up, so `waitForChildren` left it alone, and when the
    /// worker freed up the first wait took the slot back although the second was pending. The
    /// parent then held the only worker while it waited for `holder`, whose own child could
    /// never run: the run hung.
    @Test func aWaitThatBeginsWhileAnotherQueuesForTheSlotKeepsTheParentOffTheOnlyWorker() async throws {
        let (proceed, release) = (Gate(), Gate())
        var workflow = Workflow()
        let parent = try workflow.add("p") { ctx in
            let holder = try ctx.addChild("holder") { ctx in
                await release.wait()
                let grandchild = try ctx.addChild("grandchild") { _ in 2 }
                return try await ctx.value(of: grandchild)
            }
            let cancelled = try ctx.addChild("cancelled", needs: ["holder"]) { _ in 1 }
            async let first: Int? = try? ctx.value(of: cancelled)
            await proceed.wait()
            async let second = ctx.value(of: holder)
            let read = await first
            return try await second * 10 + (read ?? 0)
        }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 1, gracePeriod: .seconds(3600)))
        await events.wait(for: .started("p/holder"))  // p's first wait gave the only worker up
        run.cancel("p/cancelled")  // the first wait is satisfied; holder still has the worker
        proceed.open()
        await pendingWaits(of: "p", in: run, atLeast: 1)  // the second wait, for holder, began
        release.open()  // holder gives the worker up to wait for its child
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(report.value(of: parent) == 20)
        #expect(report.outcome(of: "p/cancelled")?.status == .cancelled)
        #expect(report.outcome(of: "p/holder/grandchild")?.status == .succeeded)
    }

    /// The same in a lane: the queued wait also holds a place in its parent's lane, so the lane
    /// admits no new job into the slot the parent will take back. A child the second wait is for,
    /// added meanwhile in that lane, waits for that place: when the second wait begins, the place
    /// must go to it (the parent no longer takes it), or the child and the parent wait for each
    /// other.
    @Test func aWaitThatBeginsWhileAnotherQueuesForTheSlotLeavesItsLaneSlotToItsChild() async throws {
        let (proceed, release) = (Gate(), Gate())
        var workflow = Workflow()
        workflow.lane("disk", width: 1)
        let parent = try workflow.add("p", lane: "disk") { ctx in
            let holder = try ctx.addChild("holder") { _ in
                await release.wait()
                return 2
            }
            let cancelled = try ctx.addChild("cancelled", needs: ["holder"]) { _ in 1 }
            async let first: Int? = try? ctx.value(of: cancelled)
            await proceed.wait()
            let late = try ctx.addChild("late", lane: "disk") { _ in 3 }  // waits for the lane
            async let second = ctx.value(of: late)
            let read = await first
            return try await second * 10 + (read ?? 0) + ctx.value(of: holder) * 100
        }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 1, gracePeriod: .seconds(3600)))
        await events.wait(for: .started("p/holder"))  // p's first wait gave its worker and lane slot up
        run.cancel("p/cancelled")  // the first wait is satisfied; holder still has the worker
        proceed.open()
        await pendingWaits(of: "p", in: run, atLeast: 1)  // the second wait, for late, began
        release.open()
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(report.value(of: parent) == 230)
        #expect(report.outcome(of: "p/late")?.status == .succeeded)
    }

    /// A child that ends when a worker takes it (it shares a finished coalesced result) frees its
    /// waiting parent, which resumes before any new job starts. `takeReady` went on to take the
    /// next queued job for the same worker, so at `maxConcurrency: 1` the parent's sibling child
    /// ran first and the parent resumed only after it.
    @Test(arguments: 0..<10)
    func aParentFreedWhenAChildTakesAFinishedResultResumesBeforeTheNextJob(repetition: Int) async throws {
        let order = LockedValue<[String]>([])
        var workflow = Workflow()
        try workflow.add("leader", coalesce: "k") { _ in "shared" }
        let parent = try workflow.add("parent", needs: ["leader"]) { ctx in
            let shared = try ctx.addChild("shared", coalesce: "k") { _ in "own" }
            try ctx.addChild("next") { _ in order.withLock { $0.append("next") } }
            let value = try await ctx.value(of: shared)  // "shared" is taken first: it ends at once
            order.withLock { $0.append("parent resumed") }
            return value
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 1))
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(order.value == ["parent resumed", "next"])
        #expect(report.value(of: parent) == "shared")
        #expect(report.outcome(of: "parent/shared")?.attempts == 0)
    }

    /// The same when the worker that takes the child has just finished a job: `first`'s end
    /// queues `shared` and `next`, and its worker takes `shared`, which ends at once. The worker
    /// must give its place to the parent, not go on to `next`.
    @Test(arguments: 0..<10)
    func aParentFreedByAChildItsWorkerTookAfterAJobResumesBeforeTheNextJob(repetition: Int) async throws {
        let order = LockedValue<[String]>([])
        var workflow = Workflow()
        try workflow.add("leader", coalesce: "k") { _ in "shared" }
        let parent = try workflow.add("parent", needs: ["leader"]) { ctx in
            try ctx.addChild("first") { _ in order.withLock { $0.append("first") } }
            let shared = try ctx.addChild("shared", needs: ["first"], coalesce: "k") { _ in "own" }
            try ctx.addChild("next", needs: ["first"]) { _ in order.withLock { $0.append("next") } }
            let value = try await ctx.value(of: shared)
            order.withLock { $0.append("parent resumed") }
            return value
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 1))
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(order.value == ["first", "parent resumed", "next"])
        #expect(report.value(of: parent) == "shared")
    }
}

/// Waits, yielding, until the body of `id` has at least `count` waits for children that its
/// children have not satisfied yet.
private func pendingWaits(of id: JobID, in run: Run, atLeast count: Int) async {
    func pending() -> Int {
        run.core.state.withLock { state in
            state.scheduler.job(id).map { state.scheduler.groups.pendingWaits(of: $0) } ?? 0
        }
    }
    while pending() < count, !Task.isCancelled { await Task.yield() }
}
