import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Synchronization
import Testing

/// Failures: by default the first failure stops new jobs from starting (running jobs finish,
/// the rest are skipped with `.runStopped`); with `keepGoing` everything not depending on the
/// failure runs; dependents of a failure are skipped with `.neededJobFailed`, carrying the
/// original error and the path from the failing job.
@Suite(.suiteTimeLimit) struct FailureTests {
    struct Boom: Error, Equatable {
        let job: String
    }

    static func name(_ job: Int) -> JobID { JobID("j\(job)") }

    static func boom(of outcome: JobOutcome?) -> Boom? { outcome?.error?.underlying as? Boom }

    // MARK: - Stopping after the first failure

    /// Two jobs run ("slow" and "bad"); "bad" fails while "slow" is held. "slow" finishes
    /// normally; the jobs that had not started are skipped: `.runStopped`, or
    /// `.neededJobFailed` for the one that needs "bad".
    @Test(arguments: 0..<50)
    func theFirstFailureStopsNewJobsFromStarting(iteration: Int) async throws {
        let slowGate = Gate()
        let badGate = Gate()
        let calls = CallLog()
        let slowSawCancellation = Atomic<Bool>(true)
        var workflow = Workflow()
        try workflow.add("slow") { ctx in
            calls.called(ctx.id)
            await slowGate.wait()
            slowSawCancellation.store(ctx.isCancelled, ordering: .relaxed)
            return "finished"
        }
        try workflow.add("bad") { ctx in
            calls.called(ctx.id)
            await badGate.wait()
            throw Boom(job: "bad")
        }
        for job: JobID in ["later1", "later2"] { try workflow.add(job) { ctx in calls.called(ctx.id) } }
        try workflow.add("needsBad", needs: ["bad"]) { ctx in calls.called(ctx.id) }
        try workflow.add("needsSlow", needs: ["slow"]) { ctx in calls.called(ctx.id) }

        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let run = try workflow.start(RunOptions(maxConcurrency: 2, events: continuation))
        await slowGate.arrivals(atLeast: 1)
        await badGate.arrivals(atLeast: 1)
        badGate.open()
        for await event in stream where event == .finished("bad", .failed) { break }
        #expect(run.snapshot.running == ["slow"])
        slowGate.open()
        let report = await run.report()

        #expect(report.status == .failed)
        let slow = try #require(report.outcome(of: "slow"))
        #expect(slow.status == .succeeded)
        #expect(slowSawCancellation.load(ordering: .relaxed) == false)

        let bad = try #require(report.outcome(of: "bad"))
        #expect(bad.status == .failed)
        #expect(bad.error?.code == .failed)
        #expect(bad.error?.path == ["bad"])
        #expect(Self.boom(of: bad) == Boom(job: "bad"))
        #expect(bad.attempts == 1)

        for job: JobID in ["later1", "later2", "needsSlow"] {
            let outcome = try #require(report.outcome(of: job))
            #expect(outcome.status == .skipped, "\(job)")
            #expect(outcome.error?.code == .runStopped, "\(job)")
            #expect(outcome.error?.path == ["bad", job], "\(job)")
            #expect(outcome.error?.origin == "bad")
            #expect(outcome.attempts == 0 && outcome.startedAt == nil && outcome.endedAt == nil)
            #expect(calls.calls(job) == 0, "\(job) ran")
        }
        let needsBad = try #require(report.outcome(of: "needsBad"))
        #expect(needsBad.status == .skipped)
        #expect(needsBad.error?.code == .neededJobFailed)
        #expect(needsBad.error?.path == ["bad", "needsBad"])
        #expect(Self.boom(of: needsBad) == Boom(job: "bad"))
        #expect(calls.calls("needsBad") == 0)
        #expect(calls.calls("slow") == 1 && calls.calls("bad") == 1)
    }

    // MARK: - Keeping going

    @Test(arguments: 0..<20)
    func keepGoingRunsEverythingThatDoesNotDependOnTheFailure(iteration: Int) async throws {
        let calls = CallLog()
        var workflow = Workflow()
        try workflow.add("bad") { _ in throw Boom(job: "bad") }
        try workflow.add("b", needs: ["bad"]) { ctx in calls.called(ctx.id) }
        try workflow.add("c", needs: ["b"]) { ctx in calls.called(ctx.id) }
        try workflow.add("ok") { ctx in calls.called(ctx.id) }
        try workflow.add("mixed", needs: ["ok", "b"]) { ctx in calls.called(ctx.id) }
        try workflow.add("afterOk", needs: ["ok"]) { ctx in calls.called(ctx.id) }
        for job in 0..<6 { try workflow.add(Self.name(job)) { ctx in calls.called(ctx.id) } }

        let report = try await workflow.start(RunOptions(maxConcurrency: 2, keepGoing: true)).report()
        #expect(report.status == .failed)
        for job in [JobID("ok"), JobID("afterOk")] + (0..<6).map(Self.name) {
            #expect(report.outcome(of: job)?.status == .succeeded, "\(job)")
            #expect(calls.calls(job) == 1, "\(job)")
        }
        let expectedPaths: [JobID: [JobID]] = ["b": ["bad", "b"], "c": ["bad", "b", "c"], "mixed": ["bad", "b", "mixed"]]
        for (job, path) in expectedPaths {
            let outcome = try #require(report.outcome(of: job))
            #expect(outcome.status == .skipped)
            #expect(outcome.error?.code == .neededJobFailed)
            #expect(outcome.error?.path == path)
            #expect(Self.boom(of: outcome) == Boom(job: "bad"))
            #expect(calls.calls(job) == 0)
        }
        #expect(report.count(.succeeded) == 8)
        #expect(report.count(.skipped) == 3)
        #expect(report.count(.failed) == 1)
    }

    /// a <- b <- c <- d: when a fails, each later job is skipped with the chain from a to it,
    /// whether or not the run keeps going.
    @Test(arguments: [false, true])
    func dependentsOfAFailureCarryTheErrorAndThePath(keepGoing: Bool) async throws {
        var workflow = Workflow()
        try workflow.add("a") { _ in throw Boom(job: "a") }
        try workflow.add("b", needs: ["a"]) { _ in }
        try workflow.add("c", needs: ["b"]) { _ in }
        try workflow.add("d", needs: ["c"]) { _ in }
        let report = try await workflow.start(RunOptions(keepGoing: keepGoing)).report()
        #expect(report.status == .failed)

        let a = try #require(report.outcome(of: "a"))
        #expect(a.status == .failed)
        #expect(a.error?.path == ["a"])
        #expect(a.startedAt != nil && a.endedAt != nil && a.attempts == 1)

        let expected: [JobID: [JobID]] = ["b": ["a", "b"], "c": ["a", "b", "c"], "d": ["a", "b", "c", "d"]]
        for (job, path) in expected {
            let error = try #require(report.outcome(of: job)?.error)
            #expect(report.outcome(of: job)?.status == .skipped)
            #expect(error.code == .neededJobFailed)
            #expect(error.path == path)
            #expect(error.origin == "a")
            #expect(error.underlying as? Boom == Boom(job: "a"))
        }
        let description = try #require(report.outcome(of: "c")?.error).description
        #expect(description.contains("a -> b -> c"), "\(description)")
    }

    @Test func aDiamondDependentOfAFailureIsSkippedThroughTheFailingBranch() async throws {
        var workflow = Workflow()
        try workflow.add("root") { _ in }
        try workflow.add("left", needs: ["root"]) { _ in }
        try workflow.add("right", needs: ["root"]) { _ in throw Boom(job: "right") }
        try workflow.add("join", needs: ["left", "right"]) { _ in }
        let report = try await workflow.start(RunOptions(keepGoing: true)).report()
        #expect(report.outcome(of: "left")?.status == .succeeded)
        #expect(report.outcome(of: "join")?.status == .skipped)
        #expect(report.outcome(of: "join")?.error?.path == ["right", "join"])
        #expect(Self.boom(of: report.outcome(of: "join")) == Boom(job: "right"))
    }

    // MARK: - Every small graph, every failing job

    static func allDAGs(jobs count: Int) -> [[[Int]]] {
        var edges: [(need: Int, job: Int)] = []
        for job in 0..<count { for need in 0..<job { edges.append((need, job)) } }
        return (0..<(1 << edges.count)).map { mask in
            var needs = [[Int]](repeating: [], count: count)
            for (bit, edge) in edges.enumerated() where mask & (1 << bit) != 0 { needs[edge.job].append(edge.need) }
            return needs
        }
    }

    /// The jobs that need `failing`, directly or not.
    static func dependents(of failing: Int, in needs: [[Int]]) -> Set<Int> {
        var result = Set<Int>()
        for job in needs.indices where job > failing {
            if needs[job].contains(where: { $0 == failing || result.contains($0) }) { result.insert(job) }
        }
        return result
    }

    /// Builds the workflow (adding jobs in reverse order, so needs name later jobs) where job
    /// `failing` throws; returns it with the call counter.
    static func workflow(_ needs: [[Int]], failing: Int) throws -> (Workflow, CallLog) {
        let calls = CallLog()
        var workflow = Workflow()
        for job in needs.indices.reversed() {
            try workflow.add(Self.name(job), needs: needs[job].map(Self.name)) { ctx in
                calls.called(ctx.id)
                if job == failing { throw Boom(job: ctx.id.description) }
            }
        }
        return (workflow, calls)
    }

    /// Checks a skipped job's path: from the failing job to `job`, each step a need edge.
    static func pathProblems(_ path: [JobID], from failing: Int, to job: Int, needs: [[Int]]) -> [String] {
        let indices = path.compactMap { id in needs.indices.first { Self.name($0) == id } }
        guard indices.count == path.count, indices.first == failing, indices.last == job else {
            return ["job \(job): path \(path)"]
        }
        return zip(indices, indices.dropFirst()).compactMap { need, dependent in
            needs[dependent].contains(need) ? nil : "job \(job): path \(path) has a step that is not a need"
        }
    }

    /// Every DAG on up to 5 jobs, each job failing in turn, keeping going: exactly the jobs
    /// depending on the failure are skipped, with a real path; all others run once. A case per
    /// size and failing job, so that no case runs thousands of runs (under the sanitizer, one
    /// case for 5 jobs came near its time limit).
    @Test(arguments: (1...5).flatMap { jobs in (0..<jobs).map { (jobs, $0) } })
    func keepGoingOnEverySmallGraph(jobs: Int, failing: Int) async throws {
        var runs = 0
        for needs in Self.allDAGs(jobs: jobs) {
            do {
                let (workflow, calls) = try Self.workflow(needs, failing: failing)
                let report = try await workflow.start(RunOptions(maxConcurrency: 1 + runs % 3, keepGoing: true)).report()
                runs += 1
                let skipped = Self.dependents(of: failing, in: needs)
                var problems: [String] = []
                if report.status != .failed { problems.append("status \(report.status)") }
                for job in 0..<jobs {
                    let outcome = try #require(report.outcome(of: Self.name(job)))
                    if job == failing {
                        if outcome.status != .failed || outcome.error?.path != [Self.name(job)] { problems.append("\(outcome)") }
                        if calls.calls(Self.name(job)) != 1 { problems.append("failing job ran \(calls.calls(Self.name(job))) times") }
                    } else if skipped.contains(job) {
                        if outcome.status != .skipped || outcome.error?.code != .neededJobFailed { problems.append("\(outcome)") }
                        if Self.boom(of: outcome) != Boom(job: Self.name(failing).description) { problems.append("job \(job): wrong error") }
                        problems += Self.pathProblems(outcome.error?.path ?? [], from: failing, to: job, needs: needs)
                        if calls.calls(Self.name(job)) != 0 || outcome.startedAt != nil { problems.append("skipped job \(job) ran") }
                    } else {
                        if outcome.status != .succeeded { problems.append("\(outcome)") }
                        if calls.calls(Self.name(job)) != 1 { problems.append("job \(job) ran \(calls.calls(Self.name(job))) times") }
                    }
                }
                #expect(problems.isEmpty, "needs \(needs), job \(failing) fails: \(problems)")
            }
        }
    }

    /// Every DAG on up to 4 jobs, each job failing in turn, stopping at the first failure: no
    /// job is taken after the failure; the failure's dependents are `.neededJobFailed`, the
    /// other jobs either ran or are `.runStopped` with the path [failing job, job].
    @Test(arguments: 1...4, [1, 2])
    func stoppingOnEverySmallGraph(jobs: Int, maxConcurrency: Int) async throws {
        for needs in Self.allDAGs(jobs: jobs) {
            for failing in 0..<jobs {
                let (workflow, calls) = try Self.workflow(needs, failing: failing)
                let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
                let report = try await workflow.start(RunOptions(maxConcurrency: maxConcurrency, events: continuation)).report()
                var events: [RunEvent] = []
                for await event in stream { events.append(event) }

                let failed = Self.name(failing)
                let skipped = Self.dependents(of: failing, in: needs)
                var problems: [String] = []
                if report.status != .failed { problems.append("status \(report.status)") }
                if let failure = events.firstIndex(of: .finished(failed, .failed)) {
                    // Workers send `.started` as they call a body, so a job a worker took before
                    // the failure may report its start after it; at most the other workers' jobs,
                    // and only jobs whose needs had finished before the failure.
                    let lateStarts = events[failure...].compactMap { event -> Int? in
                        guard case .started(let id) = event else { return nil }
                        return (0..<jobs).first { Self.name($0) == id }
                    }
                    if lateStarts.count > maxConcurrency - 1 { problems.append("started after the failure: \(lateStarts)") }
                    for job in lateStarts where !needs[job].allSatisfy({ events[..<failure].contains(.finished(Self.name($0), .succeeded)) }) {
                        problems.append("job \(job) started after the failure, its needs finished after it")
                    }
                } else {
                    problems.append("no failure event in \(events)")
                }
                for job in 0..<jobs where job != failing {
                    let outcome = try #require(report.outcome(of: Self.name(job)))
                    let ran = calls.calls(Self.name(job))
                    switch outcome.status {
                    case .succeeded:
                        if skipped.contains(job) || ran != 1 { problems.append("\(outcome), ran \(ran)") }
                    case .skipped where skipped.contains(job):
                        if outcome.error?.code != .neededJobFailed || ran != 0 { problems.append("\(outcome)") }
                        problems += Self.pathProblems(outcome.error?.path ?? [], from: failing, to: job, needs: needs)
                    case .skipped:
                        if outcome.error?.code != .runStopped || outcome.error?.path != [failed, Self.name(job)] || ran != 0 {
                            problems.append("\(outcome)")
                        }
                        if Self.boom(of: outcome) != Boom(job: failed.description) { problems.append("job \(job): wrong error") }
                    default:
                        problems.append("\(outcome)")
                    }
                }
                #expect(problems.isEmpty, "needs \(needs), job \(failing) fails, maxConcurrency \(maxConcurrency): \(problems)")
            }
        }
    }
}
