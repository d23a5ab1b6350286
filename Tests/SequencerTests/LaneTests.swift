import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Lanes: a width-1 lane is a true serial queue; jobs of an ordered lane start in the order they
/// were added and a job waiting for a need keeps its place; a lane of width N never runs more than
/// N; an unordered lane only limits concurrency; lane declarations and lane-order deadlocks are
/// checked before anything runs.
///
/// Tests that wait for something a wrong engine would never do are bounded by the time limit.
@Suite(.suiteTimeLimit) struct LaneTests {
    // MARK: - Helpers

    final class Log: Sendable {
        private let entries = Locked<[String]>([])
        func record(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// A run that reports its events.
    struct Watched {
        let run: Run
        private var log: EventLog
        var seen: [RunEvent] { log.seen }

        init(_ workflow: Workflow, maxConcurrency: Int, keepGoing: Bool = false) throws {
            (run, log) = try EventLog.start(workflow, RunOptions(maxConcurrency: maxConcurrency, keepGoing: keepGoing))
        }

        /// Waits until `wanted` happens (or has happened).
        mutating func wait(for wanted: RunEvent) async { await log.wait(for: wanted) }

        /// Waits for the run to end; returns its report, with every event in `seen`.
        mutating func finish() async -> RunReport {
            let report = await run.report()
            await log.drain()
            return report
        }

        func index(of event: RunEvent) -> Int? { seen.firstIndex(of: event) }

        /// The order in which `jobs` started.
        func startOrder(of jobs: [JobID]) -> [JobID] {
            seen.compactMap { event in
                if case .started(let id) = event, jobs.contains(id) { return id }
                return nil
            }
        }

        /// The most of `jobs` that were running at once, as the run reported them.
        func peak(of jobs: [JobID]) -> Int {
            var running = 0
            var peak = 0
            for event in seen {
                switch event {
                case .started(let id) where jobs.contains(id):
                    running += 1
                    peak = max(peak, running)
                case .finished(let id, _) where jobs.contains(id) && startedBefore(id, event):
                    running -= 1
                default:
                    break
                }
            }
            return peak
        }

        /// Lane-order problems of `members` (in add order) in a lane of `width`, as far as the
        /// events can show them. Workers send `.started` as they call a body, so jobs taken
        /// together may report their starts in either order; but when member k is taken, every
        /// earlier member was taken before it and at most `width - 1` of them are unfinished.
        /// So at `.started(k)`, at least `k - (width - 1)` earlier members have finished, and
        /// every need of every earlier member has finished (a waiting job holds its place).
        func laneOrderProblems(_ members: [JobID], width: Int, needs: [JobID: [JobID]] = [:]) -> [String] {
            var problems: [String] = []
            for (k, member) in members.enumerated() {
                guard let start = index(of: .started(member)) else {
                    problems.append("\(member) never started")
                    continue
                }
                let finishedBefore = members[..<k].filter { earlier in
                    seen[..<start].contains { if case .finished(earlier, _) = $0 { true } else { false } }
                }
                if finishedBefore.count < k - (width - 1) {
                    problems.append("\(member) started with only \(finishedBefore) of \(Array(members[..<k])) finished")
                }
                for earlier in members[..<k] {
                    for need in needs[earlier] ?? [] where !seen[..<start].contains(.finished(need, .succeeded)) {
                        problems.append("\(member) started before \(need), needed by the earlier \(earlier), finished")
                    }
                }
            }
            return problems
        }

        private func startedBefore(_ id: JobID, _ event: RunEvent) -> Bool {
            guard let end = seen.firstIndex(of: event) else { return false }
            return seen[..<end].contains(.started(id))
        }
    }

    static func name(_ job: Int) -> JobID { JobID("j\(job)") }

    // MARK: - The serial-queue seed case

    /// NSOperationQueue's maxConcurrentOperationCount = 1 problem: op1, op2, op3 in a width-1
    /// lane, op2 needs X (held by a gate). op3 is ready but must not start before op2.
    @Test(arguments: 0..<50)
    func aJobWaitingForANeedKeepsItsPlaceInASerialLane(iteration: Int) async throws {
        let gate = Gate()
        let log = Log()
        var workflow = Workflow()
        workflow.lane("serial", width: 1)
        try workflow.add("op1", lane: "serial") { _ in log.record("op1") }
        try workflow.add("op2", needs: ["X"], lane: "serial") { _ in log.record("op2") }
        try workflow.add("op3", lane: "serial") { _ in log.record("op3") }
        try workflow.add("X") { _ in
            await gate.wait()
            log.record("X")
        }
        var watched = try Watched(workflow, maxConcurrency: 4)
        await watched.wait(for: .finished("op1", .succeeded))
        await gate.arrivals(atLeast: 1)
        // op1 is done and the lane is free, but op2 holds its place: only X runs.
        #expect(watched.run.snapshot.running == ["X"])
        #expect(log.all == ["op1"])
        gate.open()
        let report = await watched.finish()

        #expect(report.status == .succeeded)
        #expect(log.all == ["op1", "X", "op2", "op3"])
        #expect(watched.startOrder(of: ["op1", "op2", "op3"]) == ["op1", "op2", "op3"])
        let op3 = try #require(watched.index(of: .started("op3")))
        let op2 = try #require(watched.index(of: .finished("op2", .succeeded)))
        let x = try #require(watched.index(of: .finished("X", .succeeded)))
        #expect(op2 < op3 && x < op3)
    }

    @Test(arguments: 0..<50)
    func aWidthOneLaneIsASerialQueue(iteration: Int) async throws {
        let meter = ConcurrencyMeter()
        let log = Log()
        var workflow = Workflow()
        workflow.lane("disk", width: 1)
        let members = (0..<8).map(Self.name)
        for job in members {
            try workflow.add(job, lane: "disk") { _ in
                meter.enter()
                log.record(job.description)
                await Task.yield()
                meter.leave()
            }
            try workflow.add(JobID("free-\(job)")) { _ in await Task.yield() }
        }
        var watched = try Watched(workflow, maxConcurrency: 4)
        let report = await watched.finish()
        #expect(report.status == .succeeded)
        #expect(meter.peak == 1)
        #expect(log.all == members.map(\.description))
        #expect(watched.startOrder(of: members) == members)
        #expect(watched.peak(of: members) == 1)
    }

    /// `width * 3` lane jobs wait at a gate with plenty of workers: exactly `width` get in, and
    /// they start in the order they were added.
    @Test(arguments: [2, 3], 0..<20)
    func aLaneOfWidthNNeverRunsMoreThanN(width: Int, iteration: Int) async throws {
        let gate = Gate()
        let meter = ConcurrencyMeter()
        var workflow = Workflow()
        workflow.lane("network", width: width)
        let members = (0..<(width * 3)).map(Self.name)
        for job in members {
            try workflow.add(job, lane: "network") { _ in
                meter.enter()
                await gate.wait()
                meter.leave()
            }
        }
        try workflow.add("outside") { _ in await gate.wait() }
        var watched = try Watched(workflow, maxConcurrency: 8)
        await gate.arrivals(atLeast: width + 1)
        let running = watched.run.snapshot.running
        #expect(running.filter { members.contains($0) }.count == width)
        #expect(running.contains("outside"))
        gate.open()
        let report = await watched.finish()
        #expect(report.status == .succeeded)
        #expect(meter.peak == width)
        #expect(watched.peak(of: members) == width)
        let problems = watched.laneOrderProblems(members, width: width)
        #expect(problems.isEmpty, "\(problems)")
    }

    /// In an ordered lane of width 2, a job waiting for a need holds its place even though the
    /// lane has a free slot.
    @Test(arguments: 0..<30)
    func aWaitingJobKeepsItsPlaceInAWiderOrderedLane(iteration: Int) async throws {
        let gate = Gate()
        var workflow = Workflow()
        workflow.lane("pair", width: 2)
        try workflow.add("a", lane: "pair") { _ in }
        try workflow.add("b", needs: ["X"], lane: "pair") { _ in }
        try workflow.add("c", lane: "pair") { _ in }
        try workflow.add("d", lane: "pair") { _ in }
        try workflow.add("X") { _ in await gate.wait() }
        var watched = try Watched(workflow, maxConcurrency: 4)
        await watched.wait(for: .finished("a", .succeeded))
        await gate.arrivals(atLeast: 1)
        #expect(watched.run.snapshot.running == ["X"])
        gate.open()
        let report = await watched.finish()
        #expect(report.status == .succeeded)
        let problems = watched.laneOrderProblems(["a", "b", "c", "d"], width: 2, needs: ["b": ["X"]])
        #expect(problems.isEmpty, "\(problems)")
        #expect(watched.peak(of: ["a", "b", "c", "d"]) <= 2)
    }

    /// Ordered lanes start jobs in the order they were added even when a later job runs at a
    /// higher priority than an earlier one that is ready at the same time: its own priority, or
    /// one it inherits from a job that needs it.
    @Test(arguments: [false, true])
    func anOrderedLaneKeepsAddOrderOverPriority(inherited: Bool) async throws {
        let gate = Gate()
        var workflow = Workflow()
        workflow.lane("pair", width: 2)
        // One worker, held by "first", so both lane jobs are queued when it becomes free.
        try workflow.add("first", priority: .userInteractive) { _ in await gate.wait() }
        try workflow.add("early", lane: "pair", priority: inherited ? .utility : .background) { _ in }
        if inherited {
            try workflow.add("late", lane: "pair") { _ in }
            try workflow.add("urgent", needs: ["late"], priority: .userInteractive) { _ in }
        } else {
            try workflow.add("late", lane: "pair", priority: .userInteractive) { _ in }
        }
        var watched = try Watched(workflow, maxConcurrency: 1)
        await gate.arrivals(atLeast: 1)
        gate.open()
        let report = await watched.finish()
        #expect(report.status == .succeeded)
        #expect(watched.startOrder(of: ["early", "late"]) == ["early", "late"])
    }

    // MARK: - Unordered lanes

    /// An unordered width-1 lane only limits concurrency: op3 runs while op2 waits for X.
    @Test(arguments: 0..<30)
    func anUnorderedLaneLetsReadyJobsOvertake(iteration: Int) async throws {
        let gate = Gate()
        let meter = ConcurrencyMeter()
        var workflow = Workflow()
        workflow.lane("loose", width: 1, ordered: false)
        for (job, needs) in [("op1", [JobID]()), ("op2", ["X"]), ("op3", [])] {
            try workflow.add(JobID(job), needs: needs, lane: "loose") { _ in
                meter.enter()
                await Task.yield()
                meter.leave()
            }
        }
        try workflow.add("X") { _ in await gate.wait() }
        var watched = try Watched(workflow, maxConcurrency: 4)
        // With X still held, op3 must get to run and finish.
        await watched.wait(for: .finished("op3", .succeeded))
        #expect(gate.arrivals <= 1)
        #expect(watched.index(of: .started("op2")) == nil)
        gate.open()
        let report = await watched.finish()
        #expect(report.status == .succeeded)
        #expect(meter.peak == 1)
        #expect(watched.peak(of: ["op1", "op2", "op3"]) == 1)
    }

    @Test(arguments: 0..<20)
    func anUnorderedLaneOfWidthNNeverRunsMoreThanN(iteration: Int) async throws {
        let gate = Gate()
        let meter = ConcurrencyMeter()
        var workflow = Workflow()
        workflow.lane("loose", width: 2, ordered: false)
        let members = (0..<6).map(Self.name)
        for job in members {
            try workflow.add(job, lane: "loose") { _ in
                meter.enter()
                await gate.wait()
                meter.leave()
            }
        }
        var watched = try Watched(workflow, maxConcurrency: 6)
        await gate.arrivals(atLeast: 2)
        #expect(watched.run.snapshot.running.count == 2)
        gate.open()
        let report = await watched.finish()
        #expect(report.status == .succeeded)
        #expect(meter.peak == 2)
        #expect(watched.peak(of: members) == 2)
    }

    /// An earlier job of an unordered lane may need a later one: no deadlock.
    @Test func anUnorderedLaneAllowsAnEarlierJobToNeedALaterOne() async throws {
        var workflow = Workflow()
        workflow.lane("loose", width: 1, ordered: false)
        try workflow.add("a", needs: ["b"], lane: "loose") { _ in }
        try workflow.add("b", lane: "loose") { _ in }
        try workflow.validate()
        let report = try await workflow.start().report()
        #expect(report.status == .succeeded)
    }

    // MARK: - Lane validation

    @Test(arguments: [1, 3])
    func anEarlierLaneJobNeedingALaterOneIsADeadlock(width: Int) throws {
        var workflow = Workflow()
        workflow.lane("serial", width: width)
        try workflow.add("a", needs: ["b"], lane: "serial") { _ in }
        try workflow.add("b", lane: "serial") { _ in }
        let error = try #require(#expect(throws: WorkflowError.self) { try workflow.validate() })
        #expect(error.code == .laneOrderDeadlock)
        #expect(Set(error.jobs) == ["a", "b"])
        #expect(error.jobs.first == error.jobs.last)
        #expect(error.message.contains("'serial'"))
        let startError = #expect(throws: WorkflowError.self) { _ = try workflow.start() }
        #expect(startError?.code == .laneOrderDeadlock)
    }

    @Test func aLaneOrderDeadlockThroughAJobOutsideTheLaneIsFound() throws {
        var workflow = Workflow()
        workflow.lane("serial", width: 1)
        try workflow.add("a", needs: ["x"], lane: "serial") { _ in }
        try workflow.add("x", needs: ["b"]) { _ in }
        try workflow.add("b", lane: "serial") { _ in }
        let error = try #require(#expect(throws: WorkflowError.self) { try workflow.validate() })
        #expect(error.code == .laneOrderDeadlock)
        #expect(Set(error.jobs) == ["a", "x", "b"])
        #expect(error.jobs.first == error.jobs.last)
    }

    @Test func aLaneOrderDeadlockThroughAnotherLaneIsFound() throws {
        // a1 needs b2; b2 waits for b1 (lane M); b1 needs a2; a2 waits for a1 (lane L).
        var workflow = Workflow()
        workflow.lane("L", width: 1)
        workflow.lane("M", width: 1)
        try workflow.add("a1", needs: ["b2"], lane: "L") { _ in }
        try workflow.add("b1", needs: ["a2"], lane: "M") { _ in }
        try workflow.add("a2", lane: "L") { _ in }
        try workflow.add("b2", lane: "M") { _ in }
        let error = try #require(#expect(throws: WorkflowError.self) { try workflow.validate() })
        #expect(error.code == .laneOrderDeadlock)
        #expect(Set(error.jobs) == ["a1", "a2", "b1", "b2"])
        #expect(error.jobs.first == error.jobs.last)
    }

    @Test func aLaterLaneJobMayNeedAnEarlierOne() async throws {
        var workflow = Workflow()
        workflow.lane("serial", width: 1)
        let a = try workflow.add("a", lane: "serial") { _ in 2 }
        let b = try workflow.add("b", needs: ["a"], lane: "serial") { ctx in try await ctx.value(of: a) * 3 }
        try workflow.validate()
        let report = try await workflow.start().report()
        #expect(report.value(of: b) == 6)
    }

    @Test func anUndeclaredLaneIsRejected() throws {
        var workflow = Workflow()
        try workflow.add("fetch", lane: "nowhere") { _ in }
        let error = #expect(throws: WorkflowError.self) { try workflow.validate() }
        #expect(error?.code == .unknownLane)
        #expect(error?.message.contains("'nowhere'") == true)
        #expect(error?.message.contains("'fetch'") == true)
        let startError = #expect(throws: WorkflowError.self) { _ = try workflow.start() }
        #expect(startError?.code == .unknownLane)
        // Declaring it afterwards is enough.
        workflow.lane("nowhere", width: 1)
        try workflow.validate()
    }

    @Test(arguments: [0, -1])
    func aLaneWidthBelowOneIsRejected(width: Int) throws {
        var workflow = Workflow()
        workflow.lane("narrow", width: width)
        try workflow.add("a", lane: "narrow") { _ in }
        let error = #expect(throws: WorkflowError.self) { try workflow.validate() }
        #expect(error?.code == .invalidLaneWidth)
        #expect(error?.message.contains("'narrow'") == true)
        #expect((#expect(throws: WorkflowError.self) { _ = try workflow.start() })?.code == .invalidLaneWidth)
        workflow.lane("narrow", width: 2)
        try workflow.validate()
        workflow.lane("narrow", width: width)
        #expect((#expect(throws: WorkflowError.self) { try workflow.validate() })?.code == .invalidLaneWidth)
    }

    // MARK: - Failures and lanes

    /// A lane job skipped because its need failed gives up its place: the next lane job runs.
    @Test(arguments: 0..<20)
    func aSkippedLaneJobGivesUpItsPlace(iteration: Int) async throws {
        struct Boom: Error {}
        var workflow = Workflow()
        workflow.lane("serial", width: 1)
        try workflow.add("a", needs: ["broken"], lane: "serial") { _ in }
        try workflow.add("b", lane: "serial") { _ in }
        try workflow.add("broken") { _ in throw Boom() }
        let report = try await workflow.start(RunOptions(keepGoing: true)).report()
        #expect(report.outcome(of: "a")?.status == .skipped)
        #expect(report.outcome(of: "a")?.error?.code == .neededJobFailed)
        #expect(report.outcome(of: "b")?.status == .succeeded)
        #expect(report.status == .failed)
    }

    // MARK: - Every small graph with a lane

    /// Would the lane order deadlock? Simulated: a job starts when its needs are done and the
    /// job added to its lane before it has started.
    static func deadlocks(needs: [[Int]], inLane: [Bool], addOrder: [Int]) -> Bool {
        let laneOrder = addOrder.filter { inLane[$0] }
        var previous = [Int?](repeating: nil, count: needs.count)
        for (earlier, later) in zip(laneOrder, laneOrder.dropFirst()) { previous[later] = earlier }
        var done = [Bool](repeating: false, count: needs.count)
        var progress = true
        while progress {
            progress = false
            for job in needs.indices where !done[job] {
                if needs[job].allSatisfy({ done[$0] }), previous[job].map({ done[$0] }) ?? true {
                    done[job] = true
                    progress = true
                }
            }
        }
        return done.contains(false)
    }

    /// Every DAG on 4 jobs, every choice of which jobs are in one ordered lane, every add order:
    /// validate() rejects exactly the workflows that would deadlock. For two add orders each, the
    /// valid ones run: lane jobs start in add order (as far as events show), holding their place
    /// while they wait for needs, within the lane's width, after their needs.
    ///
    /// A case per width and half of the graphs (without and with the edge 2 -> 3), so that no
    /// case comes near its time limit under the sanitizer.
    @Test(arguments: [1, 2], [false, true])
    func everySmallLaneGraphIsJudgedAndRunRight(width: Int, lastEdge: Bool) async throws {
        let count = 4
        var edges: [(need: Int, job: Int)] = []
        for job in 0..<count { for need in 0..<job { edges.append((need, job)) } }
        var orders: [[Int]] = [[]]
        for job in 0..<count {
            orders = orders.flatMap { order in (0...order.count).map { var o = order; o.insert(job, at: $0); return o } }
        }
        var deadlocks = 0
        var runs = 0
        let half = 1 << (edges.count - 1)   // the last edge is 2 -> 3
        for mask in lastEdge ? half..<(2 * half) : 0..<half {
            var needs = [[Int]](repeating: [], count: count)
            for (bit, edge) in edges.enumerated() where mask & (1 << bit) != 0 { needs[edge.job].append(edge.need) }
            for laneMask in 0..<(1 << count) {
                let inLane = (0..<count).map { laneMask & (1 << $0) != 0 }
                for (orderIndex, order) in orders.enumerated() {
                    var workflow = Workflow()
                    workflow.lane("lane", width: width)
                    for job in order {
                        try workflow.add(Self.name(job), needs: needs[job].map(Self.name), lane: inLane[job] ? "lane" : nil) { _ in
                            await Task.yield()
                        }
                    }
                    let expectDeadlock = Self.deadlocks(needs: needs, inLane: inLane, addOrder: order)
                    let context = "needs \(needs), lane \(inLane), order \(order)"
                    do {
                        try workflow.validate()
                        #expect(!expectDeadlock, "missed a lane-order deadlock: \(context)")
                    } catch let error as WorkflowError {
                        #expect(expectDeadlock, "rejected a valid workflow: \(context): \(error)")
                        #expect(error.code == .laneOrderDeadlock, "\(context)")
                        deadlocks += 1
                        continue
                    }
                    guard orderIndex == mask % orders.count || orderIndex == orders.count - 1 else { continue }
                    runs += 1
                    var watched = try Watched(workflow, maxConcurrency: 3)
                    let report = await watched.finish()
                    #expect(report.status == .succeeded, "\(context)")
                    let members = order.filter { inLane[$0] }.map(Self.name)
                    var needsByID: [JobID: [JobID]] = [:]
                    for job in 0..<count { needsByID[Self.name(job)] = needs[job].map(Self.name) }
                    let problems = watched.laneOrderProblems(members, width: width, needs: needsByID)
                    #expect(problems.isEmpty, "\(context): \(problems), events \(watched.seen)")
                    #expect(watched.peak(of: members) <= width, "\(context)")
                    for job in 0..<count {
                        let start = try #require(watched.index(of: .started(Self.name(job))), "\(context)")
                        for need in needs[job] {
                            let end = try #require(watched.index(of: .finished(Self.name(need), .succeeded)), "\(context)")
                            #expect(end < start, "\(context)")
                        }
                    }
                }
            }
        }
        #expect(deadlocks > 0 && runs > 400)
    }
}
