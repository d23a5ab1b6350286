@testable import Sequencer
import Testing

/// A batch's bodies are read ahead before its first job runs (`Plan.touchBodies`): the reads
/// stay inside the plan's bodies, whatever job numbers a batch holds.
@Suite struct BodyReadAheadTests {
    private func plan(count: Int) throws -> Plan {
        var workflow = Workflow()
        for job in 0..<count { try workflow.add(JobID("j\(job)")) { _ in job } }
        return try Plan(workflow)
    }

    /// Each body read gives its type's words: the same for bodies of one type, never zero, and
    /// counted once per time a job is named.
    @Test func eachBodyNamedIsRead() throws {
        let plan = try plan(count: 5)
        let one = plan.touchBodies([2])
        #expect(one != 0)
        #expect(plan.touchBodies([4]) == one)
        #expect(plan.touchBodies([0, 3, 3]) == one &* 3)
    }

    /// Jobs the plan holds no body for are skipped: numbers past its end (jobs added while the
    /// run runs), negative ones, and every job of a plan kept without its bodies. A read past
    /// the array would trap in this debug build's bounds check.
    @Test func jobsWithoutABodyHereAreSkipped() throws {
        let plan = try plan(count: 3)
        let one = plan.touchBodies([0])
        #expect(plan.touchBodies([3, 1_000_000, -1, Int32.min, Int32.max]) == 0)
        #expect(plan.touchBodies([3, 1, -1]) == one)
        #expect(plan.withoutBodies().touchBodies([0, 1, 2]) == 0)
        #expect(plan.touchBodies([]) == 0)
    }
}
