import Sequencer
import SequencerTestSupport
import Testing

/// A finished run's report keeps its results, not its jobs' bodies: a report is often kept by
/// the object whose methods the bodies call, and through them it would keep that object, and
/// all it holds, alive in a cycle. (The worker that hands the report over lets go of the run
/// just after: hence `eventually`.)
@Suite(.timeLimit(.minutes(1))) struct ReportRetentionTests {
    /// Says when it goes.
    final class Capture: Sendable {
        let gone: Locked<Bool>
        init(_ gone: Locked<Bool>) { self.gone = gone }
        deinit { gone.withLock { $0 = true } }
    }

    /// Keeps the report of a run whose job calls one of its methods.
    final class Owner: Sendable {
        let gone: Locked<Bool>
        let report = Locked<RunReport?>(nil)
        init(_ gone: Locked<Bool>) { self.gone = gone }
        deinit { gone.withLock { $0 = true } }
        func sync() -> Int { 7 }

        func runAndKeepReport() async throws {
            var workflow = Workflow()
            let job = try workflow.add("sync") { _ in self.sync() }
            let report = await (try workflow.start()).report()
            #expect(report.value(of: job) == 7)
            self.report.withLock { $0 = report }
        }
    }

    @Test func aKeptReportLetsGoOfWhatTheBodiesCaptured() async throws {
        let gone = Locked(false)
        var workflow = Workflow()
        let capture = Capture(gone)
        let job = try workflow.add("a") { _ in capture.gone.withLock { $0 } ? 0 : 1 }
        let report = await (try workflow.start()).report()
        workflow = Workflow()
        _ = consume capture
        #expect(await eventually(within: .seconds(10)) { gone.withLock { $0 } })
        // What the report is for is still there.
        #expect(report.status == .succeeded && report.value(of: job) == 1)
        #expect(report.criticalPath == ["a"])
    }

    @Test func aKeptReportLetsGoOfWhatAChildsBodyCaptured() async throws {
        let gone = Locked(false)
        var workflow = Workflow()
        let parent = try workflow.add("parent") { context in
            let capture = Capture(gone)
            let child = try context.addChild("child") { _ in capture.gone.withLock { $0 } ? 0 : 2 }
            return try await context.value(of: child)
        }
        let report = await (try workflow.start()).report()
        workflow = Workflow()
        #expect(await eventually(within: .seconds(10)) { gone.withLock { $0 } })
        #expect(report.outcome(of: "parent/child")?.status == .succeeded)
        #expect(report.value(of: parent) == 2)
    }

    @Test func anOwnerThatKeepsTheReportOfItsOwnJobsGoesWhenLetGo() async throws {
        let gone = Locked(false)
        var owner: Owner? = Owner(gone)
        try await owner?.runAndKeepReport()
        #expect(owner?.report.withLock { $0?.status } == .succeeded)
        owner = nil
        #expect(await eventually(within: .seconds(10)) { gone.withLock { $0 } })
    }
}
