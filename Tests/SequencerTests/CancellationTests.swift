import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A small graph, its jobs listed so that every job comes after the jobs it needs.
private struct SmallGraph: Sendable, CustomTestStringConvertible {
    let name: String
    let order: [JobID]
    let needs: [JobID: [JobID]]

    init(_ name: String, _ jobs: [(JobID, [JobID])]) {
        self.name = name
        order = jobs.map(\.0)
        needs = Dictionary(uniqueKeysWithValues: jobs.map { ($0.0, $0.1) })
    }

    /// a -> b -> c
    static let chain = SmallGraph("chain", [("a", []), ("b", ["a"]), ("c", ["b"])])
    /// a -> b, a -> c, b -> d, c -> d
    static let diamond = SmallGraph("diamond", [("a", []), ("b", ["a"]), ("c", ["a"]), ("d", ["b", "c"])])
    /// Two independent chains: a -> b and c -> d.
    static let twoChains = SmallGraph("two chains", [("a", []), ("b", ["a"]), ("c", []), ("d", ["c"])])

    static let all = [chain, diamond, twoChains]

    var testDescription: String { name }

    /// Every job that needs `job`, directly or not.
    func descendants(of job: JobID) -> Set<JobID> {
        var found = Set<JobID>()
        var changed = true
        while changed {
            changed = false
            for candidate in order where !found.contains(candidate) {
                let needs = needs[candidate] ?? []
                if needs.contains(job) || needs.contains(where: found.contains) {
                    found.insert(candidate)
                    changed = true
                }
            }
        }
        return found
    }

    func position(of job: JobID) -> Int { order.firstIndex(of: job) ?? -1 }
}

/// A run of a ``SmallGraph`` whose every job, once started, is held until the test releases
/// it. The hold is a sleep on the job's own manual clock: cancellable, so a held job sees
/// cancellation, and observable, so the test knows when the job is running.
private struct HeldRun {
    let graph: SmallGraph
    let holds: [JobID: ManualClock]
    let handles: [JobID: JobHandle<String>]
    let log = CallLog()
    let run: Run

    init(_ graph: SmallGraph, lanes: [JobID: String] = [:], laneWidth: Int = 1, maxConcurrency: Int = 4) throws {
        self.graph = graph
        let holds = Dictionary(uniqueKeysWithValues: graph.order.map { ($0, ManualClock()) })
        var workflow = Workflow()
        for lane in Set(lanes.values) { workflow.lane(lane, width: laneWidth) }
        var handles: [JobID: JobHandle<String>] = [:]
        let log = self.log
        for id in graph.order {
            let hold = holds[id]!
            handles[id] = try workflow.add(id, needs: graph.needs[id] ?? [], lane: lanes[id]) { _ in
                log.called(id)
                do {
                    try await hold.sleep(until: manualInstant(.seconds(1)))
                } catch {
                    log.sawCancellation(id)
                    throw error
                }
                return id.rawValue
            }
        }
        self.holds = holds
        self.handles = handles
        run = try workflow.start(RunOptions(maxConcurrency: maxConcurrency, gracePeriod: .seconds(3600)))
    }

    /// Waits until `job` is running and held.
    func held(_ job: JobID) async throws {
        try #require(await BoundedWait.sleepers(holds[job]!, atLeast: 1), "job \(job) never reached its hold")
    }

    /// Waits until `job` is held, then lets it finish.
    func release(_ job: JobID) async throws {
        try await held(job)
        holds[job]!.advance(by: .seconds(1))
    }

    func report() async throws -> RunReport {
        try #require(await BoundedWait.report(run), "the run did not end")
    }
}

/// Where and how a run is cancelled.
private struct CancelPoint: Sendable, CustomTestStringConvertible {
    enum Mode: Sendable {
        /// `run.cancel()` while `job` runs.
        case runWhileRunning
        /// `run.cancel(job)` while `job` runs.
        case jobWhileRunning
        /// `run.cancel(job)` while a job it needs is still running.
        case jobBeforeStart
    }

    let graph: SmallGraph
    let job: JobID
    let mode: Mode

    var testDescription: String { "\(graph.name), \(mode) \(job)" }

    static let all: [CancelPoint] = SmallGraph.all.flatMap { graph in
        graph.order.flatMap { job in
            var points = [CancelPoint(graph: graph, job: job, mode: .runWhileRunning),
                          CancelPoint(graph: graph, job: job, mode: .jobWhileRunning)]
            if !(graph.needs[job] ?? []).isEmpty {
                points.append(CancelPoint(graph: graph, job: job, mode: .jobBeforeStart))
            }
            return points
        }
    }
}

@Suite(.suiteTimeLimit)
struct CancellationTests {
    /// Cancel at every point of small graphs, and check every job's outcome.
    @Test(arguments: CancelPoint.all, 0..<10)
    fileprivate func cancelAtEveryPoint(_ point: CancelPoint, repetition: Int) async throws {
        let graph = point.graph
        let target = point.job
        let descendants = graph.descendants(of: target)
        let held = try HeldRun(graph)
        let run = held.run
        var finishedBeforeCancel = Set<JobID>()

        switch point.mode {
        case .runWhileRunning, .jobWhileRunning:
            for job in graph.order.prefix(while: { $0 != target }) {
                try await held.release(job)
                finishedBeforeCancel.insert(job)
            }
            try await held.held(target)
            if point.mode == .runWhileRunning {
                run.cancel()
            } else {
                run.cancel(target)
                for job in graph.order.drop(while: { $0 != target }).dropFirst() where !descendants.contains(job) {
                    try await held.release(job)
                }
            }
        case .jobBeforeStart:
            let needs = graph.needs[target] ?? []
            let blocker = try #require(needs.max { graph.position(of: $0) < graph.position(of: $1) })
            for job in graph.order.prefix(while: { $0 != blocker }) { try await held.release(job) }
            try await held.held(blocker)
            run.cancel(target)
            for job in graph.order.drop(while: { $0 != blocker }) where job != target && !descendants.contains(job) {
                try await held.release(job)
            }
        }
        let report = try await held.report()

        func expectedStatus(_ job: JobID) -> JobStatus {
            if point.mode == .runWhileRunning { return finishedBeforeCancel.contains(job) ? .succeeded : .cancelled }
            if job == target { return .cancelled }
            return descendants.contains(job) ? .skipped : .succeeded
        }

        for job in graph.order {
            let outcome = try #require(report.outcome(of: job))
            let calls = held.log.calls(job)
            #expect(outcome.status == expectedStatus(job), "\(job)")
            #expect(calls <= 1, "\(job)'s body ran \(calls) times")
            switch outcome.status {
            case .succeeded:
                #expect(outcome.error == nil)
                #expect(calls == 1 && outcome.attempts == 1 && outcome.startedAt != nil)
                #expect(report.value(of: held.handles[job]!) == job.rawValue)
            case .cancelled:
                #expect(outcome.error?.code == .cancelled, "\(job): \(String(describing: outcome.error))")
                #expect(outcome.error?.path == [job])
                if calls > 0 {
                    #expect(held.log.sawCancellation(of: job), "\(job) ran but never saw the cancellation")
                    #expect(outcome.error?.underlying is CancellationError)
                    #expect(outcome.startedAt != nil && outcome.endedAt != nil && outcome.attempts == 1)
                } else {
                    #expect(outcome.startedAt == nil && outcome.endedAt == nil && outcome.attempts == 0,
                            "\(job) never ran, so it has no start time: \(outcome)")
                }
            case .skipped:
                #expect(calls == 0, "skipped job \(job) ran")
                #expect(outcome.startedAt == nil && outcome.attempts == 0)
                let error = try #require(outcome.error)
                #expect(error.code == .neededJobFailed)
                #expect(error.origin == target)
                #expect(error.path.last == job)
                for (need, dependent) in zip(error.path, error.path.dropFirst()) {
                    #expect(graph.needs[dependent]?.contains(need) == true, "path \(error.path) is not a chain of needs")
                }
            default:
                Issue.record("\(job) ended \(outcome.status)")
            }
        }
        // The cancelled job itself: ran (and saw cancellation) exactly when cancelled while running.
        switch point.mode {
        case .runWhileRunning, .jobWhileRunning:
            #expect(held.log.calls(target) == 1 && held.log.sawCancellation(of: target))
        case .jobBeforeStart:
            #expect(held.log.calls(target) == 0)
        }
        for job in descendants { #expect(held.log.calls(job) == 0, "\(job) needs a cancelled job, yet ran") }
        // No job failed or timed out. (When cancelling one job skips others, the run's status is
        // checked by `cancellingOneJobThatOthersNeedLeavesTheRunCancelledNotFailed`.)
        if point.mode == .runWhileRunning || descendants.isEmpty {
            #expect(report.status == .cancelled, "\(point.testDescription): \(report.outcomes.map(\.description))")
        } else {
            #expect(report.status != .succeeded)
        }
        #expect(run.snapshot.isFinished)
    }

    /// `run.cancel()` right after `start`: nothing that had not started ever starts, and what
    /// started sees the cancellation.
    @Test(arguments: SmallGraph.all, 0..<30)
    fileprivate func cancelBeforeAnyJobStarts(_ graph: SmallGraph, repetition: Int) async throws {
        let held = try HeldRun(graph)
        held.run.cancel()
        let report = try await held.report()
        #expect(report.status == .cancelled)
        #expect(report.count(.cancelled) == graph.order.count)
        for job in graph.order {
            let outcome = try #require(report.outcome(of: job))
            let ran = held.log.calls(job) > 0
            #expect(outcome.status == .cancelled)
            #expect(outcome.error?.code == .cancelled)
            #expect((outcome.startedAt != nil) == ran, "\(job): body called \(ran), outcome \(outcome)")
            #expect(outcome.attempts == (ran ? 1 : 0))
            if ran { #expect(held.log.sawCancellation(of: job)) }
            if !(graph.needs[job] ?? []).isEmpty { #expect(!ran, "\(job) needs a job that never finished, yet ran") }
        }
    }

    /// `run.cancel(id)` of a job others need: the job is cancelled and its dependents skipped,
    /// but no job failed or timed out, so the run is `.cancelled` ("the run, or a job in it, was
    /// cancelled"), not `.failed` ("a job failed or timed out").
    @Test(arguments: [false, true], 0..<5)
    func cancellingOneJobThatOthersNeedLeavesTheRunCancelledNotFailed(whileRunning: Bool, repetition: Int) async throws {
        let held = try HeldRun(.chain)
        if whileRunning {
            try await held.held("a")
            held.run.cancel("a")
        } else {
            try await held.held("a")
            held.run.cancel("b")
            try await held.release("a")
        }
        let report = try await held.report()
        #expect(report.count(.failed) == 0 && report.count(.timedOut) == 0)
        #expect(report.count(.cancelled) == 1)
        #expect(report.outcome(of: "c")?.status == .skipped)
        #expect(report.outcome(of: "c")?.error?.code == .neededJobFailed)
        #expect(report.status == .cancelled, "statuses: \(report.outcomes.map(\.description))")
    }

    @Test(arguments: SmallGraph.all)
    fileprivate func cancellingAfterTheRunEndedChangesNothing(_ graph: SmallGraph) async throws {
        let held = try HeldRun(graph)
        for job in graph.order { try await held.release(job) }
        let before = try await held.report()
        #expect(before.status == .succeeded)

        held.run.cancel()
        for job in graph.order { held.run.cancel(job) }
        held.run.cancel("no-such-job")

        let after = try await held.report()
        #expect(after.status == .succeeded)
        for job in graph.order {
            #expect(after.outcome(of: job)?.status == .succeeded)
            #expect(after.value(of: held.handles[job]!) == job.rawValue)
        }
        let snapshot = held.run.snapshot
        #expect(snapshot.isFinished && snapshot.succeeded == graph.order.count && snapshot.cancelled == 0)
    }

    @Test func cancellingAnUnknownJobIsIgnored() async throws {
        let held = try HeldRun(.chain)
        try await held.held("a")
        held.run.cancel("no-such-job")
        for job in SmallGraph.chain.order { try await held.release(job) }
        let report = try await held.report()
        #expect(report.status == .succeeded)
        #expect(report.count(.succeeded) == 3)
    }

    /// A body in `Task.sleep` sees the cancellation, and `report()` returns without waiting for
    /// the sleep.
    @Test(arguments: [false, true], 0..<10)
    func cancellationReachesABodyInTaskSleep(byID: Bool, repetition: Int) async throws {
        let arrived = Gate()
        arrived.open()  // counts arrivals without holding anyone
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("sleeper") { _ in
            log.called("sleeper")
            await arrived.wait()
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                log.sawCancellation("sleeper")
                throw error
            }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 2, gracePeriod: .seconds(3600)))
        try #require(await BoundedWait.arrivals(arrived, atLeast: 1))
        if byID { run.cancel("sleeper") } else { run.cancel() }
        let report = try #require(await BoundedWait.report(run))
        let outcome = try #require(report.outcome(of: "sleeper"))
        #expect(log.sawCancellation(of: "sleeper"))
        #expect(outcome.status == .cancelled)
        #expect(outcome.error?.code == .cancelled)
        #expect(outcome.error?.underlying is CancellationError)
        #expect(outcome.startedAt != nil)
        #expect(report.status == .cancelled)
    }

    /// A job cancelled while it waits its turn in a width-1 lane never starts, and the next job
    /// of the lane runs after the lane's current job.
    @Test(arguments: 0..<30)
    func cancellingAJobQueuedInASerialLaneNeitherStartsItNorBlocksTheLane(repetition: Int) async throws {
        let graph = SmallGraph("lane", [("x", []), ("y", []), ("z", [])])
        let held = try HeldRun(graph, lanes: ["x": "serial", "y": "serial", "z": "serial"])
        try await held.held("x")
        #expect(held.run.snapshot.running == ["x"], "a width-1 lane runs one job at a time")
        held.run.cancel("y")
        try await held.release("x")
        try await held.release("z")
        let report = try await held.report()
        let y = try #require(report.outcome(of: "y"))
        #expect(held.log.calls("y") == 0)
        #expect(y.status == .cancelled && y.error?.code == .cancelled)
        #expect(y.startedAt == nil && y.attempts == 0)
        #expect(report.outcome(of: "x")?.status == .succeeded)
        #expect(report.outcome(of: "z")?.status == .succeeded)
        #expect(report.status == .cancelled)
    }

    /// In an ordered lane a job waiting for its needs holds its place; cancelling it must free
    /// the place at once, so the next job of the lane starts while the need still runs.
    @Test(arguments: 0..<30)
    func cancellingALaneJobThatHoldsItsPlaceLetsTheNextOneStart(repetition: Int) async throws {
        let graph = SmallGraph("lane with need", [("w", []), ("y", ["w"]), ("z", [])])
        let held = try HeldRun(graph, lanes: ["y": "serial", "z": "serial"])
        try await held.held("w")
        #expect(!held.run.snapshot.running.contains("z"), "z must not overtake y in an ordered lane")
        #expect(held.log.calls("z") == 0)
        held.run.cancel("y")
        try await held.release("z")  // z starts while w is still held
        try await held.release("w")
        let report = try await held.report()
        #expect(held.log.calls("y") == 0)
        #expect(report.outcome(of: "y")?.status == .cancelled)
        #expect(report.outcome(of: "y")?.startedAt == nil)
        #expect(report.outcome(of: "w")?.status == .succeeded)
        #expect(report.outcome(of: "z")?.status == .succeeded)
    }

    /// A job that holds a lane slot but waits for a free worker, cancelled by ID, gives its slot back.
    @Test(arguments: 0..<20)
    func cancellingAJobWaitingForAWorkerFreesItsLaneSlot(repetition: Int) async throws {
        let graph = SmallGraph("lane", [("x", []), ("y", []), ("z", [])])
        let held = try HeldRun(graph, lanes: ["x": "pair", "y": "pair", "z": "pair"], laneWidth: 2, maxConcurrency: 1)
        try await held.held("x")
        held.run.cancel("y")
        try await held.release("x")
        try await held.release("z")
        let report = try await held.report()
        #expect(held.log.calls("y") == 0)
        #expect(report.outcome(of: "y")?.status == .cancelled && report.outcome(of: "y")?.startedAt == nil)
        #expect(report.outcome(of: "z")?.status == .succeeded)
    }

    /// A body that answers cancellation with an error of its own is not retried.
    @Test(arguments: 0..<10)
    func aJobCancelledDuringAnAttemptIsNotRetriedWhateverItThrows(repetition: Int) async throws {
        struct Interrupted: Error {}
        let hold = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        try workflow.add("job", retry: .fixed(attempts: 3, delay: .zero)) { ctx in
            log.called("job", attempt: ctx.attempt)
            do { try await hold.sleep(for: .seconds(1)) } catch { throw Interrupted() }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 2, gracePeriod: .seconds(3600)))
        try #require(await BoundedWait.sleepers(hold, atLeast: 1))
        run.cancel("job")
        let report = try #require(await BoundedWait.report(run))
        #expect(log.attempts("job") == [1])
        #expect(report.outcome(of: "job")?.status == .cancelled)
        #expect(report.outcome(of: "job")?.error?.underlying is Interrupted)
    }

    /// A worker started for a background job goes on to a user-interactive one, which then runs
    /// in a child task at its own priority: cancellation must still reach it.
    @Test(arguments: [false, true], 0..<10)
    func aJobRunningAboveItsWorkersPriorityStillSeesCancellation(byID: Bool, repetition: Int) async throws {
        let holds = (low: ManualClock(), high: ManualClock())
        let log = CallLog()
        let highPriority = LockedValue<TaskPriority?>(nil)
        var workflow = Workflow()
        workflow.lane("serial", width: 1)  // a lane, not a need, so "low" is not raised to "high"'s priority
        try workflow.add("low", lane: "serial", priority: .background) { _ in
            try await holds.low.sleep(for: .seconds(1))
        }
        try workflow.add("high", lane: "serial", priority: .userInteractive) { ctx in
            log.called("high")
            highPriority.withLock { $0 = Task.basePriority }
            do {
                try await holds.high.sleep(for: .seconds(1))
            } catch {
                log.sawCancellation("high")
                throw error
            }
            return ctx.priority
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 1, gracePeriod: .seconds(3600)))
        try #require(await BoundedWait.sleepers(holds.low, atLeast: 1))
        holds.low.advance(by: .seconds(1))
        try #require(await BoundedWait.sleepers(holds.high, atLeast: 1))
        if byID { run.cancel("high") } else { run.cancel() }
        let report = try #require(await BoundedWait.report(run))
        #expect(report.outcome(of: "low")?.status == .succeeded)
        // The body ran in the child task started at the job's own priority: the path under test.
        #expect(highPriority.value == Priority.userInteractive.taskPriority)
        #expect(log.sawCancellation(of: "high"))
        #expect(report.outcome(of: "high")?.status == .cancelled)
        #expect(report.status == .cancelled)
    }

    /// Cancelling a run whose jobs fill a serial lane: the running one sees it, the queued ones
    /// never start.
    @Test(arguments: 0..<20)
    func cancellingARunEmptiesASerialLane(repetition: Int) async throws {
        let graph = SmallGraph("lane", [("x", []), ("y", []), ("z", [])])
        let held = try HeldRun(graph, lanes: ["x": "serial", "y": "serial", "z": "serial"])
        try await held.held("x")
        held.run.cancel()
        let report = try await held.report()
        #expect(report.status == .cancelled)
        #expect(report.count(.cancelled) == 3)
        #expect(held.log.sawCancellation(of: "x"))
        #expect(held.log.calls("y") == 0 && held.log.calls("z") == 0)
        #expect(report.outcome(of: "y")?.startedAt == nil && report.outcome(of: "z")?.startedAt == nil)
    }
}
