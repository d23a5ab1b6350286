import Sequencer
import Testing

/// The README's quick start, as a test: typed values through needs, a lane, the critical path,
/// and a larger graph of 100,000 jobs that each run once.
@Suite struct QuickStartTests {
    @Test func theQuickStartRunsAsDocumented() async throws {
        var workflow = Workflow()
        workflow.lane("net", width: 2)
        let a = try workflow.add("a") { _ in 1 }
        let b = try workflow.add("b", needs: ["a"], lane: "net") { ctx in try await ctx.value(of: a) + 1 }
        try workflow.add("c", needs: ["a", "b"]) { ctx in _ = try await ctx.value(of: b) }
        let report = try await workflow.start().report()
        #expect(report.status == .succeeded)
        #expect(report.value(of: b) == 2)
        #expect(report.criticalPath == ["a", "b", "c"])
    }

    @Test func aHundredThousandJobsEachRunOnce() async throws {
        var workflow = Workflow()
        for index in 0..<100_000 {
            try workflow.add(JobID(String(index)), needs: index > 0 ? [JobID(String(index / 2))] : []) { _ in }
        }
        let report = try await workflow.start().report()
        #expect(report.status == .succeeded)
        #expect(report.count(.succeeded) == 100_000)
        #expect(report.outcomes.allSatisfy { $0.attempts == 1 })
    }
}
