@testable import Sequencer
import Testing

/// The hangs and wrong runs once reproduced with gates and real tasks (`ChildWaitSlotTests`,
/// `ChildJobTests`, `CoalescingEscapeTests`, `AbandonTests`), as step lists: the same situation,
/// reached deterministically. Each test names the one it follows; that test's comment tells the
/// story of the bug.
@Suite struct StepReproductionTests {
    /// `ChildWaitSlotTests.aWaitThatBeginsWhileAnotherQueuesForTheSlotKeepsTheParentOffTheOnlyWorker`.
    @Test func aWaitThatBeginsWhileAnotherQueuesForTheSlotKeepsTheParentOffTheOnlyWorker() throws {
        var workflow = Workflow()
        try workflow.add("p") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        run.addChild("holder", to: "p")
        run.addChild("cancelled", to: "p", needs: ["holder"])
        run.wait("p", for: "p/cancelled", blocking: false)  // async let first
        #expect(run.running == ["p/holder"])
        run.cancel("p/cancelled")
        #expect(run.waiting == ["p"], "the first wait queues for the worker holder has")
        run.wait("p", for: "p/holder")  // async let second, then both are awaited
        #expect(run.last.resume.count == 1, "the first wait resumes without the slot")
        run.addChild("grandchild", to: "p/holder")
        run.wait("p/holder", for: "p/holder/grandchild")
        #expect(run.running == ["p/holder/grandchild"], "p still waits: the worker goes to the grandchild")
        run.finish("p/holder/grandchild")
        #expect(run.running == ["p/holder"])
        run.finish("p/holder")
        #expect(run.running == ["p"])
        run.finish("p")
        #expect(run.isFinished)
    }

    /// `ChildWaitSlotTests.aWaitThatBeginsWhileAnotherQueuesForTheSlotLeavesItsLaneSlotToItsChild`.
    @Test func aWaitThatBeginsWhileAnotherQueuesForTheSlotLeavesItsLaneSlotToItsChild() throws {
        var workflow = Workflow()
        workflow.lane("disk", width: 1)
        try workflow.add("p", lane: "disk") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        run.addChild("holder", to: "p")
        run.addChild("cancelled", to: "p", needs: ["holder"])
        run.wait("p", for: "p/cancelled", blocking: false)
        run.cancel("p/cancelled")  // the first wait queues, holding p's place in the lane
        run.addChild("late", to: "p", lane: "disk")
        #expect(run.phase("p/late") == .laneWaiting, "the lane keeps its slot for p")
        run.wait("p", for: "p/late")
        #expect(run.phase("p/late") == .queued, "p waits again: its place goes to late")
        run.finish("p/holder")
        #expect(run.running == ["p/late"])
        run.finish("p/late")
        #expect(run.running == ["p"])
        run.finish("p")
        #expect(run.isFinished)
    }

    /// `ChildWaitSlotTests.aParentFreedWhenAChildTakesAFinishedResultResumesBeforeTheNextJob`.
    @Test func aParentFreedWhenAChildTakesAFinishedResultResumesBeforeTheNextJob() throws {
        var run = try Self.parentAfterLeader()
        run.addChild("shared", to: "parent", coalesce: "k")
        run.addChild("next", to: "parent")
        run.wait("parent", for: "parent/shared")
        #expect(run.phase("parent/shared") == .succeeded, "it took leader's result")
        #expect(run.running == ["parent"], "parent resumed before next")
        #expect(run.phase("parent/next") == .queued)
        run.finish("parent")
        #expect(run.running == ["parent/next"])
        run.finish("parent/next")
        #expect(run.startOrder == ["leader", "parent", "parent/next"])
        #expect(run.isFinished)
    }

    /// One worker: `leader`, with key `k`, has ended, and `parent`, which needs it, runs.
    private static func parentAfterLeader() throws -> StepDriver {
        var workflow = Workflow()
        try workflow.add("leader", coalesce: "k") { _ in }
        try workflow.add("parent", needs: ["leader"]) { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        run.finish("leader")
        return run
    }

    /// `ChildWaitSlotTests.aParentFreedByAChildItsWorkerTookAfterAJobResumesBeforeTheNextJob`.
    @Test func aParentFreedByAChildItsWorkerTookAfterAJobResumesBeforeTheNextJob() throws {
        var run = try Self.parentAfterLeader()
        run.addChild("first", to: "parent")
        run.addChild("shared", to: "parent", needs: ["first"], coalesce: "k")
        run.addChild("next", to: "parent", needs: ["first"])
        run.wait("parent", for: "parent/shared")
        #expect(run.running == ["parent/first"])
        run.finish("parent/first")
        #expect(run.last.worker == .exit, "its worker takes shared, which ends at once, and gives its place to parent")
        #expect(run.running == ["parent"])
        #expect(run.phase("parent/next") == .queued)
        run.finish("parent")
        run.finish("parent/next")
        #expect(run.startOrder == ["leader", "parent", "parent/first", "parent/next"])
        #expect(run.isFinished)
    }

    /// `ChildJobTests.aParentResumesWhenItsLastChildIsCancelledWhileAWorkerIdles`.
    @Test func aParentResumesWhenItsLastChildIsCancelledWhileAWorkerIdles() throws {
        var workflow = Workflow()
        try workflow.add("gated") { _ in }
        try workflow.add("p") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2, keepGoing: true)
        run.begin()
        run.addChild("quick", to: "p")
        run.addChild("blocked", to: "p", needs: ["gated"])
        run.wait("p")
        #expect(run.running == ["gated", "p/quick"])
        run.finish("p/quick")
        #expect(run.workers.values.filter { $0.state == .parked }.count == 1)
        run.cancel("p/blocked")
        #expect(run.last.wake.count == 1 && run.last.wake.first?.job == nil, "the idle worker exits to make room")
        #expect(run.running == ["gated", "p"])
        run.finish("p")
        run.finish("gated")
        #expect(run.isFinished)
    }

    /// `ChildJobTests.aChildDoesNotQueueBehindLaneJobsWaitingForItsParent`.
    @Test func aChildDoesNotQueueBehindLaneJobsWaitingForItsParent() throws {
        var workflow = Workflow()
        workflow.lane("disk", width: 1)
        try workflow.add("needs-p", needs: ["p"], lane: "disk") { _ in }
        try workflow.add("p") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        run.addChild("write", to: "p", lane: "disk")
        #expect(run.running == ["p", "p/write"], "write takes the lane outside its order")
        run.wait("p", for: "p/write")
        run.finish("p/write")
        run.finish("p")
        #expect(run.running == ["needs-p"])
        run.finish("needs-p")
        #expect(run.isFinished)
    }

    /// `CoalescingEscapeTests.aChildNotTakenYetHasJoinedNoOne`.
    @Test func aChildNotTakenYetHasJoinedNoOne() throws {
        var workflow = Workflow()
        try workflow.add("a", coalesce: "ka") { _ in }
        try workflow.add("b", coalesce: "kb") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2, keepGoing: true)
        run.begin()
        run.addChild("gate", to: "a")
        run.addChild("later", to: "a", needs: ["gate"], coalesce: "kb")
        run.wait("a")
        run.addChild("join", to: "b", coalesce: "ka")
        run.wait("b", for: "b/join")
        #expect(run.phase("b/join") == .running)
        #expect(run.running == ["a/gate"], "b/join joins a: it runs no body")
        run.finish("a/gate", .failed)
        #expect(run.phase("a/later") == .skipped)
        #expect(run.running == ["a"])
        run.finish("a")
        #expect(run.phase("b/join") == .succeeded)
        #expect(run.number("b/join").map { run.scheduler.jobs[$0].attempts } == 0)
        #expect(run.running == ["b"])
        run.finish("b")
        #expect(run.isFinished)
    }

    /// `CoalescingEscapeTests.aChildRunningItsOwnBodyHasJoinedNoOne`.
    @Test func aChildRunningItsOwnBodyHasJoinedNoOne() throws {
        var workflow = Workflow()
        try workflow.add("l", coalesce: "kl") { _ in }
        try workflow.add("m", coalesce: "km") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 3)
        run.begin()
        run.addChild("mj", to: "m", coalesce: "kl")
        #expect(run.phase("m/mj") == .running, "it joins l")
        run.wait("m", for: "m/mj", blocking: false)
        run.addChild("c", to: "l", coalesce: "km")
        #expect(run.running == ["l", "l/c"], "m waits for c (through mj, which joined l): c runs its own body")
        run.wait("l", for: "l/c")
        run.addChild("mj2", to: "m", coalesce: "kl")
        #expect(run.phase("m/mj2") == .running)
        #expect(run.startOrder == ["l", "m", "l/c"], "mj2 joins l: c waits for no one")
        run.wait("m", for: "m/mj2")
        run.finish("l/c")
        run.finish("l")
        #expect(run.phase("m/mj2") == .succeeded)
        #expect(run.running == ["m"])
        run.finish("m")
        #expect(run.isFinished)
    }

    /// `AbandonTests.aBodyIgnoringItsTimeoutIsAbandonedAfterTheGracePeriod`.
    @Test func aBodyIgnoringItsTimeoutIsAbandonedAfterTheGracePeriod() throws {
        var workflow = Workflow()
        workflow.lane("serial", width: 1)
        try workflow.add("stuck", lane: "serial") { _ in }
        try workflow.add("after", needs: ["stuck"]) { _ in }
        try workflow.add("next-in-lane", lane: "serial") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1, keepGoing: true)
        run.begin()
        run.timeOut("stuck")
        let timedOutAt = run.now
        #expect(run.running == ["stuck"], "the lane and the worker are held during the grace period")
        run.abandon("stuck")
        #expect(run.phase("stuck") == .timedOut)
        #expect(run.number("stuck").map { run.scheduler.jobs[$0].endedAt } == timedOutAt, "timed out as of its timeout")
        #expect(run.phase("after") == .skipped)
        #expect(run.running == ["next-in-lane"])
        run.finishLate("stuck")
        #expect(run.phase("stuck") == .timedOut)
        run.finish("next-in-lane")
        #expect(run.isFinished)
    }

    /// `AbandonTests.aBodyIgnoringTheDeadlineIsCutOffAtTheDeadline`.
    @Test func aBodyIgnoringTheDeadlineIsCutOffAtTheDeadline() throws {
        var workflow = Workflow()
        try workflow.add("fast") { _ in }
        try workflow.add("stuck", needs: ["fast"]) { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        run.finish("fast")
        run.cancelAll(.deadline)
        let deadline = run.now
        run.abandon("stuck")
        #expect(run.phase("fast") == .succeeded)
        #expect(run.phase("stuck") == .timedOut)
        #expect(run.failure("stuck")?.code == .deadlineExceeded)
        #expect(run.number("stuck").map { run.scheduler.jobs[$0].endedAt } == deadline)
        #expect(run.isFinished)
    }

    /// `AbandonTests.aBodyReturningWithinTheGracePeriodEndsNormally`.
    @Test func aBodyReturningWithinTheGracePeriodEndsNormally() throws {
        var workflow = Workflow()
        try workflow.add("slowToStop") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        run.timeOut("slowToStop")
        let timedOutAt = run.now
        run.finish("slowToStop", .timedOut)
        #expect(run.phase("slowToStop") == .timedOut)
        #expect(run.number("slowToStop").map { run.scheduler.jobs[$0].endedAt } == timedOutAt)
        #expect(run.isFinished)
        run.abandon("slowToStop")
        #expect(run.last.isEmpty, "nothing is left to abandon")
    }
}
