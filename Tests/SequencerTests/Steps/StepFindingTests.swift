@testable import Sequencer
import Testing

/// Scheduler bugs the step sweep found, each reduced to a step list.
@Suite struct StepFindingTests {
    /// Found by `StepSweepTests` (seeds 10629, 16663, 17960, 18915 of 20,000). `addChild`
    /// rejects a need that waits for the child's ancestors (through needs, children and joined
    /// leaders), but not through an ordered lane: `second` waits for its turn behind `first`,
    /// which needs `p`. The child `c` needs `after`, which needs `second`: `p` waits for `c`,
    /// which waits for `p`. Accepting the child hangs the run.
    @Test func aChildsNeedQueuedInAnOrderedLaneBehindAJobThatNeedsItsParentIsRejected() throws {
        var workflow = Workflow()
        workflow.lane("disk", width: 1)
        try workflow.add("p") { _ in }
        try workflow.add("first", needs: ["p"], lane: "disk") { _ in }
        try workflow.add("second", lane: "disk") { _ in }
        try workflow.add("after", needs: ["second"]) { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        #expect(run.running == ["p"])
        #expect(run.phase("second") == .laneWaiting, "it waits for its turn behind first")
        let child = run.addChild("c", to: "p", needs: ["after"])
        #expect(child == nil, "c could never start: after waits for second, behind first, which needs p")
        run.wait("p")
        run.drain()
        #expect(run.isFinished, "the run hangs: \(run.waiting) wait for their children")
    }
}
