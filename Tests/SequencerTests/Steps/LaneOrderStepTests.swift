@testable import Sequencer
import Testing

/// An ordered lane's order as `addChild` reads it: a job waits for its turn behind the nearest
/// job ahead of it that has not started (``Lane/jobAhead(of:_:)``).
@Suite struct LaneOrderStepTests {
    /// `second` waits for its turn behind `first` (`dropped`, between them, was cancelled), and
    /// `first` needs the parent `p`: a child of `p` that needs `second` could never start.
    /// `early`, ahead of `first`, waits only for `gate`: a child may need it.
    @Test func aChildMayNeedAJobAheadOfItsParentsDependentInAnOrderedLaneButNotOneBehind() throws {
        var workflow = Workflow()
        workflow.lane("disk", width: 1)
        try workflow.add("p") { _ in }
        try workflow.add("gate") { _ in }
        try workflow.add("early", needs: ["gate"], lane: "disk") { _ in }
        try workflow.add("first", needs: ["p"], lane: "disk") { _ in }
        try workflow.add("dropped", needs: ["gate"], lane: "disk") { _ in }
        try workflow.add("second", lane: "disk") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        #expect(run.running == ["gate", "p"])
        #expect(run.phase("second") == .laneWaiting, "it waits for its turn")
        run.cancel("dropped")
        #expect(run.addChild("c1", to: "p", needs: ["second"]) == nil, "second waits behind first, which needs p")
        #expect(run.addChild("c2", to: "p", needs: ["second"]) == nil, "asked again, along the way remembered")
        #expect(run.addChild("c3", to: "p", needs: ["early"]) == "p/c3", "early waits for gate only")
        run.wait("p")
        run.finish("gate")
        run.drain()
        #expect(run.isFinished, "the run hangs: \(run.waiting) wait for their children")
        #expect(run.startOrder == ["p", "gate", "early", "p/c3", "first", "second"])
    }

    /// Job numbers wrap around after 2³² jobs (a queue that runs for long): the order is still
    /// searched by distance from its front.
    @Test func theJobAheadIsFoundAcrossTheWrapOfJobNumbers() {
        let first = Int32.max - 1
        var table = JobTable(base: first)
        let phases: [JobPhase] = [.laneWaiting, .cancelled, .skipped, .waiting, .waiting]
        for phase in phases { table.append(JobState(lane: 0, phase: phase, priority: .utility)) }
        let members = (0..<phases.count).map { first &+ Int32($0) }
        var lane = Lane(name: "disk", width: 1, ordered: true, members: members)
        #expect(lane.jobAhead(of: members[3], table) == members[0], "over the two that ended")
        #expect(lane.jobAhead(of: members[3], table) == members[0], "again, jumping")
        #expect(lane.jobAhead(of: members[4], table) == members[3])
        #expect(lane.jobAhead(of: members[0], table) == nil, "nothing ahead of the front")
        table[members[0]].phase = .cancelled
        #expect(lane.jobAhead(of: members[3], table) == nil, "every job ahead ended")
        #expect(lane.jobAhead(of: first &+ 9, table) == nil, "not in the lane")
    }
}
