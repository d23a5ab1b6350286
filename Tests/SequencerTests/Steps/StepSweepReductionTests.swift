@testable import Sequencer
import Testing

/// The bugs that the property sweeps of the real runtime found, reduced there with gates and real
/// tasks (`ChildPropertyTests`, `ChildNeedsTests`, `CoalescingTests`, `InteractionTests`), as
/// step lists. Each test names the one it follows; that test's comment tells the story.
@Suite struct StepSweepReductionTests {
    /// `ChildPropertyTests.concurrentWaitsDoNotHoldTheOnlyWorker`.
    @Test func concurrentWaitsDoNotHoldTheOnlyWorker() throws {
        var workflow = Workflow()
        try workflow.add("p") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        run.addChild("first", to: "p")
        run.addChild("second", to: "p", needs: ["first"])
        run.wait("p", for: "p/first", blocking: false)
        run.wait("p", for: "p/second")
        run.finish("p/first")
        #expect(run.running == ["p/second"], "p still waits for second: it does not take the worker back")
        run.finish("p/second")
        #expect(run.running == ["p"])
        run.finish("p")
        #expect(run.isFinished)
    }

    /// `ChildPropertyTests.aJoinerDoesNotHoldTheLaneItsLeaderNeeds`.
    @Test func aJoinerDoesNotHoldTheLaneItsLeaderNeeds() throws {
        var workflow = Workflow()
        workflow.lane("disk", width: 1)
        try workflow.add("leader", lane: "disk", coalesce: "k") { _ in }
        try workflow.add("joiner", lane: "disk", coalesce: "k") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        run.addChild("part", to: "leader")
        run.wait("leader", for: "leader/part")
        #expect(run.phase("joiner") == .running, "admitted into the slot leader gave up, it joined leader")
        #expect(run.scheduler.lanes[0].used == 0, "a joiner holds no lane slot")
        run.finish("leader/part")
        #expect(run.running == ["leader"])
        run.finish("leader")
        #expect(run.phase("joiner") == .succeeded)
        #expect(run.isFinished)
    }

    /// `ChildPropertyTests.addChildRejectsAKeyWhoseLeaderWaitsForTheChildsAncestor`: each
    /// parent's child has the other's key. The run must end, whichever way.
    @Test func twoParentsWhoseChildrenHaveEachOthersKeyEnd() throws {
        var workflow = Workflow()
        try workflow.add("a", coalesce: "ka") { _ in }
        try workflow.add("b", coalesce: "kb") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        run.addChild("join", to: "a", coalesce: "kb")
        run.addChild("join", to: "b", coalesce: "ka")
        run.wait("a")
        run.wait("b")
        run.drain()
        #expect(run.isFinished, "the run hangs: \(run.waiting) wait for their children")
    }

    /// `ChildPropertyTests.cancellingTheRunEndsAJoiningChildOnce`: the driver's invariants check
    /// that the child is counted as ended once, and that the run ends only with the leader.
    @Test func cancellingTheRunEndsAJoiningChildOnce() throws {
        var workflow = Workflow()
        try workflow.add("leader", coalesce: "k") { _ in }
        try workflow.add("parent") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        run.addChild("child", to: "parent", coalesce: "k")
        run.wait("parent")
        #expect(run.phase("parent/child") == .running, "it joined leader")
        run.cancelAll(.cancelled)
        #expect(run.phase("parent/child") == .cancelled)
        #expect(!run.isFinished, "leader still runs")
        run.finish("parent", .cancelled)
        run.finish("leader", .cancelled)
        #expect(run.isFinished)
    }

    /// `CoalescingTests.aRunEndedByTakingJobsThatShareAFinishedResultReports`.
    @Test func aRunEndedByTakingJobsThatShareAFinishedResultReports() throws {
        var workflow = Workflow()
        try workflow.add("leader", priority: .userInitiated, coalesce: "k") { _ in }
        try workflow.add("cancelled") { _ in }
        try workflow.add("joiner", priority: .background, coalesce: "k") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        run.finish("leader")
        #expect(run.running == ["cancelled"])
        run.cancel("cancelled")
        run.finish("cancelled", .cancelled)
        #expect(run.phase("joiner") == .succeeded, "taken by a new worker, it shares leader's result")
        #expect(run.last.spawn.isEmpty, "it needs no worker")
        #expect(run.isFinished)
    }

    /// `ChildNeedsTests.aNeedOnAJobThatNeedsTheParentIsRejected`.
    @Test func aNeedOnAJobThatNeedsTheParentIsRejected() throws {
        var workflow = Workflow()
        try workflow.add("p") { _ in }
        try workflow.add("x", needs: ["p"]) { _ in }
        var run = try StepDriver(workflow)
        run.begin()
        #expect(run.addChild("c", to: "p", needs: ["x"]) == nil)
        run.drain()
        #expect(run.isFinished)
    }

    /// `ChildNeedsTests.aNeedOnAJobThatJoinedTheParentIsRejected`.
    @Test func aNeedOnAJobThatJoinedTheParentIsRejected() throws {
        var workflow = Workflow()
        try workflow.add("p", coalesce: "k") { _ in }
        try workflow.add("j", coalesce: "k") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        #expect(run.phase("j") == .running, "it joined p")
        #expect(run.addChild("c", to: "p", needs: ["j"]) == nil, "j ends when p ends")
        run.drain()
        #expect(run.isFinished)
    }

    /// `ChildNeedsTests`: `p` leads `k` and its child needs `j`, with key `k`, taken after `p`
    /// began waiting. `j` runs its own body: joining `p` would wait for `p`, which waits for it.
    @Test func aJobThatTheLeadersChildNeedsRunsItsOwnBody() throws {
        var workflow = Workflow()
        try workflow.add("g") { _ in }
        try workflow.add("p", coalesce: "k") { _ in }
        try workflow.add("j", needs: ["g"], coalesce: "k") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        run.addChild("c", to: "p", needs: ["j"])
        run.wait("p")
        run.finish("g")
        #expect(run.running == ["j"], "j runs its own body")
        run.finish("j")
        #expect(run.running == ["p/c"])
        run.finish("p/c")
        run.finish("p")
        #expect(run.isFinished)
    }

    /// `InteractionTests.aChildWithItsParentsKeyDoesNotDeadlock`.
    @Test func aChildWithItsParentsKeyDoesNotDeadlock() throws {
        var workflow = Workflow()
        try workflow.add("config", coalesce: "config") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        #expect(run.addChild("refresh", to: "config", coalesce: "config") == nil, "it would wait for its own result")
        run.drain()
        #expect(run.isFinished)
    }

    /// `InteractionTests`: two parents fill a lane of width 2 and each adds a child in that lane;
    /// waiting, they give their lane slots to the children.
    @Test func parentsThatFillTheirLaneGiveItToTheirChildrenWhileTheyWait() throws {
        var workflow = Workflow()
        workflow.lane("disk", width: 2)
        try workflow.add("p1", lane: "disk") { _ in }
        try workflow.add("p2", lane: "disk") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 4)
        run.begin()
        run.addChild("c", to: "p1", lane: "disk")
        run.addChild("c", to: "p2", lane: "disk")
        #expect(run.running == ["p1", "p2"], "the lane is full")
        run.wait("p1")
        run.wait("p2")
        #expect(run.running == ["p1/c", "p2/c"])
        run.finish("p1/c")
        run.finish("p2/c")
        #expect(run.running == ["p1", "p2"])
        run.finish("p1")
        run.finish("p2")
        #expect(run.isFinished)
    }

    /// `InteractionTests`: a body that waits for two children at once; the second wait finds its
    /// worker already given up and must still wait, not return as if its child had ended.
    @Test func aSecondConcurrentWaitWaitsForItsChild() throws {
        var workflow = Workflow()
        try workflow.add("p") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        run.addChild("one", to: "p")
        run.addChild("two", to: "p")
        run.wait("p", for: "p/one", blocking: false)
        run.wait("p", for: "p/two", blocking: false)
        #expect(run.last.resume.isEmpty, "two is still running")
        run.finish("p/two")
        #expect(run.last.resume.count == 1, "the wait for two resumes")
        #expect(run.waiting == ["p"], "the wait for one goes on")
        run.finish("p/one")
        #expect(run.running == ["p"])
        run.finish("p")
        #expect(run.isFinished)
    }
}
