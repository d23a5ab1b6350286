import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

private struct Boom: Error {}

/// A graph given as each job's needs, jobs named "j0", "j1", … in the order they are added.
private struct EventGraph: Sendable {
    let needs: [[Int]]
    var count: Int { needs.count }

    static func id(_ index: Int) -> JobID { JobID("j\(index)") }

    /// The DAG on four jobs whose edges (i -> j, i < j) are the bits of `shape` (0..<64).
    static func fourJobs(shape: Int) -> EventGraph {
        let edges = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
        var needs = [[Int]](repeating: [], count: 4)
        for (bit, (need, job)) in edges.enumerated() where shape & (1 << bit) != 0 { needs[job].append(need) }
        return EventGraph(needs: needs)
    }

    /// The benchmark's random DAG: each job needs up to 3 random earlier jobs.
    static func random(count: Int, seed: UInt64) -> EventGraph {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var needs = [[Int]]()
        for job in 0..<count {
            let k = Int(next() % 4)
            var chosen = Set<Int>()
            for _ in 0..<min(k, job) { chosen.insert(Int(next() % UInt64(job))) }
            needs.append(chosen.sorted())
        }
        return EventGraph(needs: needs)
    }
}

/// The checks every event stream must pass, against the run's report.
private func checkEvents(_ events: [RunEvent], graph: EventGraph, report: RunReport, log: CallLog) {
    guard case .runFinished(let status)? = events.last else {
        Issue.record("the stream does not end with .runFinished: \(events.suffix(3))")
        return
    }
    #expect(status == report.status)
    #expect(events.dropLast().allSatisfy { if case .runFinished = $0 { false } else { true } }, "one .runFinished, last")

    var started: [JobID: [Int]] = [:]
    var finished: [JobID: [(Int, JobStatus)]] = [:]
    for (position, event) in events.enumerated() {
        switch event {
        case .started(let id): started[id, default: []].append(position)
        case .finished(let id, let status): finished[id, default: []].append((position, status))
        case .runFinished: break
        }
    }
    for index in 0..<graph.count {
        let id = EventGraph.id(index)
        guard let outcome = report.outcome(of: id) else { Issue.record("no outcome for \(id)"); continue }
        let ends = finished[id] ?? []
        let starts = started[id] ?? []
        #expect(ends.count == 1, "\(id) finished \(ends.count) times")
        guard let (end, endStatus) = ends.first else { continue }
        #expect(endStatus == outcome.status, "\(id): event says \(endStatus), report says \(outcome.status)")
        let ran = log.calls(id) > 0
        #expect(ran == (outcome.startedAt != nil))
        // A job that never started has only a .finished event; one that started has one .started before it.
        #expect(starts.count == (ran ? 1 : 0), "\(id): \(starts.count) .started events, body called: \(ran), \(outcome)")
        if let start = starts.first { #expect(start < end) }
        if let start = starts.first {
            for need in graph.needs[index] {
                let needID = EventGraph.id(need)
                guard let (needEnd, needStatus) = finished[needID]?.first else { continue }
                #expect(needEnd < start, "\(needID) must finish before \(id) starts")
                #expect(needStatus == .succeeded)
            }
        }
    }
}

/// Runs `graph` with an event stream; `fails` names jobs whose body throws.
private func runWithEvents(
    _ graph: EventGraph, fails: Set<Int> = [], keepGoing: Bool = false, maxConcurrency: Int = 4
) async throws -> (events: [RunEvent], report: RunReport, log: CallLog) {
    let log = CallLog()
    var workflow = Workflow()
    for index in 0..<graph.count {
        let id = EventGraph.id(index)
        let throwsError = fails.contains(index)
        try workflow.add(id, needs: graph.needs[index].map(EventGraph.id)) { _ in
            log.called(id)
            if throwsError { throw Boom() }
        }
    }
    let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
    let run = try workflow.start(RunOptions(maxConcurrency: maxConcurrency, keepGoing: keepGoing, events: continuation, gracePeriod: .seconds(3600)))
    let report = try #require(await BoundedWait.report(run))
    // The run has ended, so the stream must already be finished: this loop ends.
    var events: [RunEvent] = []
    for await event in stream { events.append(event) }
    return (events, report, log)
}

@Suite(.suiteTimeLimit)
struct EventTests {
    /// Every DAG on four jobs, with no failure or with one failing job.
    @Test(arguments: 0..<64, [nil, 0, 1, 2, 3] as [Int?])
    func eventsFollowTheNeedsForEveryFourJobGraph(shape: Int, failing: Int?) async throws {
        let graph = EventGraph.fourJobs(shape: shape)
        let (events, report, log) = try await runWithEvents(graph, fails: failing.map { [$0] } ?? [])
        checkEvents(events, graph: graph, report: report, log: log)
        if failing == nil {
            #expect(report.status == .succeeded)
            #expect(events.count == 2 * graph.count + 1)
        } else {
            #expect(report.status == .failed)
        }
    }

    @Test(arguments: 0..<10)
    func eventsFollowTheNeedsInALargerRandomGraph(seed: Int) async throws {
        let graph = EventGraph.random(count: 300, seed: 42 &+ UInt64(seed))
        let fails = Set((0..<5).map { ($0 * 61 + seed * 17) % 300 })  // five failing jobs, spread out
        let (events, report, log) = try await runWithEvents(graph, fails: fails, keepGoing: true)
        checkEvents(events, graph: graph, report: report, log: log)
        for index in fails {
            // A failing job fails when it runs; it may instead be skipped, when a job it needs failed first.
            let outcome = try #require(report.outcome(of: EventGraph.id(index)))
            #expect(outcome.status == (log.calls(EventGraph.id(index)) > 0 ? .failed : .skipped))
        }
    }

    @Test(arguments: 0..<10)
    func aFailureStopsTheRunAndTheEventsSaySo(seed: Int) async throws {
        let graph = EventGraph.random(count: 200, seed: 7 &+ UInt64(seed))
        let (events, report, log) = try await runWithEvents(graph, fails: [0], keepGoing: false, maxConcurrency: 2)
        checkEvents(events, graph: graph, report: report, log: log)
        #expect(events.last == .runFinished(.failed))
    }

    /// A run cancelled right after it started: jobs whose body never ran must not be reported
    /// as started.
    @Test(arguments: 0..<30)
    func cancellingAtOnceStartsNothingThatNeverRuns(repetition: Int) async throws {
        let log = CallLog()
        var workflow = Workflow()
        let graph = EventGraph(needs: [[], [], [], [], [0], [1, 2], [4, 5], [3]])
        for index in 0..<graph.count {
            let id = EventGraph.id(index)
            try workflow.add(id, needs: graph.needs[index].map(EventGraph.id)) { _ in
                log.called(id)
                try await Task.sleep(for: .seconds(3600))
            }
        }
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let run = try workflow.start(RunOptions(maxConcurrency: 4, events: continuation, gracePeriod: .seconds(3600)))
        run.cancel()
        let report = try #require(await BoundedWait.report(run))
        var events: [RunEvent] = []
        for await event in stream { events.append(event) }
        checkEvents(events, graph: graph, report: report, log: log)
        #expect(events.last == .runFinished(.cancelled))
        #expect(report.count(.cancelled) == graph.count)
    }

    /// The same with a job held: the held job starts and is cancelled; the jobs behind it only finish.
    @Test(arguments: 0..<20)
    func cancellingWhileAJobRunsGivesOneStartAndOneFinishForIt(repetition: Int) async throws {
        let hold = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        let graph = EventGraph(needs: [[], [0], [1]])
        try workflow.add("j0") { _ in log.called("j0"); try await hold.sleep(for: .seconds(1)) }
        try workflow.add("j1", needs: ["j0"]) { _ in log.called("j1") }
        try workflow.add("j2", needs: ["j1"]) { _ in log.called("j2") }
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let run = try workflow.start(RunOptions(maxConcurrency: 2, events: continuation, gracePeriod: .seconds(3600)))
        try #require(await BoundedWait.sleepers(hold, atLeast: 1))
        run.cancel()
        let report = try #require(await BoundedWait.report(run))
        var events: [RunEvent] = []
        for await event in stream { events.append(event) }
        checkEvents(events, graph: graph, report: report, log: log)
        #expect(events.first == .started("j0"))
        #expect(Set(events) == [.started("j0"), .finished("j0", .cancelled), .finished("j1", .cancelled),
                                .finished("j2", .cancelled), .runFinished(.cancelled)])
    }

    @Test(arguments: 0..<10)
    func aDeadlineEndsTheStreamWithRunFinishedTimedOut(repetition: Int) async throws {
        let clock = ManualClock()
        let log = CallLog()
        var workflow = Workflow()
        let graph = EventGraph(needs: [[], [0], [1]])
        try workflow.add("j0") { _ in log.called("j0") }
        try workflow.add("j1", needs: ["j0"]) { _ in log.called("j1"); try await clock.sleep(for: .seconds(100)) }
        try workflow.add("j2", needs: ["j1"]) { _ in log.called("j2") }
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let run = try workflow.start(RunOptions(deadline: .seconds(5), clock: clock, events: continuation))
        try #require(await BoundedWait.sleepers(clock, atLeast: 2))
        clock.advance(by: .seconds(5))
        let report = try #require(await BoundedWait.report(run))
        var events: [RunEvent] = []
        for await event in stream { events.append(event) }
        checkEvents(events, graph: graph, report: report, log: log)
        #expect(events == [.started("j0"), .finished("j0", .succeeded), .started("j1"), .finished("j2", .cancelled),
                           .finished("j1", .timedOut), .runFinished(.timedOut)])
    }

    @Test func anEmptyWorkflowSendsOnlyRunFinished() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let run = try Workflow().start(RunOptions(events: continuation))
        let report = try #require(await BoundedWait.report(run))
        var events: [RunEvent] = []
        for await event in stream { events.append(event) }
        #expect(events == [.runFinished(report.status)])
        #expect(report.status == .succeeded)
    }
}
