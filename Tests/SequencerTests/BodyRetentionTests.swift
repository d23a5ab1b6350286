import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// What ended keeps its results, not its jobs' bodies: a finished run's report, and a queue's
/// finished jobs, are often kept by the object whose methods the bodies call, and through them
/// would keep that object, and all it holds, alive in a cycle. (The worker that hands a result
/// over lets go of the body just after: hence `eventually`.)
@Suite(.suiteTimeLimit) struct BodyRetentionTests {
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

    /// Owns a queue whose jobs call its methods, as a sync engine owns its command queue.
    final class Engine: Sendable {
        let gone: Locked<Bool>
        let queue = JobQueue()
        init(_ gone: Locked<Bool>) { self.gone = gone }
        deinit { gone.withLock { $0 = true } }
        func push(_ number: Int) -> Int { number * 2 }

        func sync(_ number: Int) async throws -> Int {
            let job = try queue.add(JobID("push-\(number)")) { _ in self.push(number) }
            return try await queue.value(of: job)
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
        #expect(await eventually { gone.withLock { $0 } })
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
        #expect(await eventually { gone.withLock { $0 } })
        #expect(report.outcome(of: "parent/child")?.status == .succeeded)
        #expect(report.value(of: parent) == 2)
    }

    @Test func anOwnerThatKeepsTheReportOfItsOwnJobsGoesWhenLetGo() async throws {
        let gone = Locked(false)
        var owner: Owner? = Owner(gone)
        try await owner?.runAndKeepReport()
        #expect(owner?.report.withLock { $0?.status } == .succeeded)
        owner = nil
        #expect(await eventually { gone.withLock { $0 } })
    }

    @Test func aQueueLetsGoOfTheBodiesOfItsFinishedJobs() async throws {
        let gone = Locked(false)
        let queue = JobQueue(keepFinished: 100)
        let job = try queue.add("a") { [capture = Capture(gone)] _ in capture.gone.withLock { $0 } ? 0 : 3 }
        #expect(try await queue.value(of: job) == 3)
        #expect(await eventually { gone.withLock { $0 } })
        // The job itself is kept (keepFinished), with its result.
        #expect(queue.outcome(of: "a")?.status == .succeeded)
        #expect(try await queue.value(of: job) == 3)
    }

    @Test func aQueueLetsGoOfACancelledJobsBodyBeforeItRan() async throws {
        let gone = Locked(false)
        let queue = JobQueue(RunOptions(maxConcurrency: 1))
        let gate = Gate()
        try queue.add("first") { _ in await gate.wait() }
        try queue.add("second") { [capture = Capture(gone)] _ in _ = capture }
        queue.cancel("second")
        #expect(await eventually { gone.withLock { $0 } })
        gate.open()
        queue.close()
        #expect(await queue.report().outcome(of: "second")?.status == .cancelled)
    }

    @Test func anEngineThatOwnsItsQueueGoesWhenLetGoAfterItsJobsEnded() async throws {
        let gone = Locked(false)
        var engine: Engine? = Engine(gone)
        #expect(try await engine?.sync(4) == 8)
        #expect(try await engine?.sync(5) == 10)
        engine = nil
        #expect(await eventually { gone.withLock { $0 } })
    }
}
