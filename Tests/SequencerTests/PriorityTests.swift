import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Priorities: among ready jobs the highest priority starts first; a job needed, directly or
/// not, by a higher-priority job runs at that priority (no inversion).
///
/// Most tests use one worker held by a first job at a gate, so that every other job is queued
/// when the worker becomes free and the start order shows the scheduler's choices.
@Suite(.suiteTimeLimit) struct PriorityTests {
    /// The jobs that started, in order, with the priority each saw in its context.
    final class StartLog: Sendable {
        private let entries = Locked<[(id: JobID, priority: Priority)]>([])
        func record(_ ctx: JobContext) {
            let entry = (id: ctx.id, priority: ctx.priority)
            entries.withLock { $0.append(entry) }
        }
        var order: [JobID] { entries.withLock { $0.map(\.id) } }
        func priority(of id: JobID) -> Priority? { entries.withLock { $0.first { $0.id == id }?.priority } }
    }

    struct LCG {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// Adds a userInteractive job "hold" that waits at `gate`; with one worker it runs first.
    static func addHold(to workflow: inout Workflow, gate: Gate, log: StartLog) throws {
        try workflow.add("hold", priority: .userInteractive) { ctx in
            log.record(ctx)
            await gate.wait()
        }
    }

    static func run(_ workflow: Workflow, gate: Gate) async throws -> RunReport {
        let run = try workflow.start(RunOptions(maxConcurrency: 1))
        await gate.arrivals(atLeast: 1)
        gate.open()
        return await run.report()
    }

    // MARK: - Higher priority first

    /// Eight jobs, two of each priority, added in a shuffled order, all ready when the worker
    /// frees up: they start by priority, and in add order within a priority. With `afterHold`
    /// they all need "hold" and become ready in the same step; otherwise they are ready at once.
    @Test(arguments: 0..<10, [false, true])
    func amongReadyJobsTheHighestPriorityStartsFirst(seed: Int, afterHold: Bool) async throws {
        var random = LCG(state: UInt64(seed + 1))
        var priorities = Priority.allCases + Priority.allCases
        for index in priorities.indices.reversed() { priorities.swapAt(index, random.next(index + 1)) }

        let gate = Gate()
        let log = StartLog()
        var workflow = Workflow()
        try Self.addHold(to: &workflow, gate: gate, log: log)
        for (index, priority) in priorities.enumerated() {
            try workflow.add(JobID("p\(index)-\(priority)"), needs: afterHold ? ["hold"] : [], priority: priority) { ctx in
                log.record(ctx)
            }
        }
        let report = try await Self.run(workflow, gate: gate)
        #expect(report.status == .succeeded)

        let expected = priorities.enumerated()
            .sorted { $0.element != $1.element ? $0.element > $1.element : $0.offset < $1.offset }
            .map { JobID("p\($0.offset)-\($0.element)") }
        #expect(log.order == ["hold"] + expected, "priorities in add order: \(priorities)")
        for (index, priority) in priorities.enumerated() {
            #expect(log.priority(of: JobID("p\(index)-\(priority)")) == priority)
        }
    }

    // MARK: - Inheritance

    /// A background job needed by a userInteractive job runs at userInteractive and starts
    /// before utility jobs that are ready at the same time, though it was added after them.
    @Test(arguments: 0..<20)
    func aBackgroundJobNeededByAUserInteractiveJobIsRaised(iteration: Int) async throws {
        let gate = Gate()
        let log = StartLog()
        var workflow = Workflow()
        try Self.addHold(to: &workflow, gate: gate, log: log)
        try workflow.add("u1") { ctx in log.record(ctx) }
        try workflow.add("u2") { ctx in log.record(ctx) }
        try workflow.add("ui", needs: ["bg"], priority: .userInteractive) { ctx in log.record(ctx) }
        try workflow.add("bg", priority: .background) { ctx in log.record(ctx) }
        try workflow.add("lonely", priority: .background) { ctx in log.record(ctx) }
        let report = try await Self.run(workflow, gate: gate)

        #expect(report.status == .succeeded)
        #expect(log.order == ["hold", "bg", "ui", "u1", "u2", "lonely"])
        #expect(log.priority(of: "bg") == .userInteractive)
        #expect(log.priority(of: "ui") == .userInteractive)
        #expect(log.priority(of: "u1") == .utility)
        #expect(log.priority(of: "lonely") == .background)
    }

    /// Inheritance is transitive: what a raised job needs is raised too.
    @Test(arguments: 0..<20)
    func inheritanceReachesEveryJobOnTheWay(iteration: Int) async throws {
        let gate = Gate()
        let log = StartLog()
        var workflow = Workflow()
        try Self.addHold(to: &workflow, gate: gate, log: log)
        for job in ["u1", "u2", "u3"] { try workflow.add(JobID(job)) { ctx in log.record(ctx) } }
        try workflow.add("ui", needs: ["b2"], priority: .userInteractive) { ctx in log.record(ctx) }
        try workflow.add("b2", needs: ["b1"], priority: .background) { ctx in log.record(ctx) }
        try workflow.add("b1", needs: ["b0"], priority: .background) { ctx in log.record(ctx) }
        try workflow.add("b0", priority: .background) { ctx in log.record(ctx) }
        let report = try await Self.run(workflow, gate: gate)

        #expect(report.status == .succeeded)
        #expect(log.order == ["hold", "b0", "b1", "b2", "ui", "u1", "u2", "u3"])
        for job: JobID in ["b0", "b1", "b2"] { #expect(log.priority(of: job) == .userInteractive) }
    }

    @Test func aJobNeededByManyRunsAtTheHighestOfTheirPriorities() async throws {
        let gate = Gate()
        let log = StartLog()
        var workflow = Workflow()
        try Self.addHold(to: &workflow, gate: gate, log: log)
        try workflow.add("shared", priority: .background) { ctx in log.record(ctx) }
        try workflow.add("a", needs: ["shared"], priority: .utility) { ctx in log.record(ctx) }
        try workflow.add("b", needs: ["shared"], priority: .userInitiated) { ctx in log.record(ctx) }
        try workflow.add("c", needs: ["shared"], priority: .background) { ctx in log.record(ctx) }
        // A job needed only by a lower-priority job keeps its own priority.
        try workflow.add("important", priority: .userInitiated) { ctx in log.record(ctx) }
        try workflow.add("after-important", needs: ["important"], priority: .background) { ctx in log.record(ctx) }
        let report = try await Self.run(workflow, gate: gate)

        #expect(report.status == .succeeded)
        #expect(log.priority(of: "shared") == .userInitiated)
        #expect(log.priority(of: "important") == .userInitiated)
        #expect(log.priority(of: "after-important") == .background)
        #expect(log.priority(of: "c") == .background)
        #expect(log.order == ["hold", "shared", "important", "b", "a", "c", "after-important"])
    }

    /// 300 random graphs of 7 jobs with random priorities and add orders, on one worker:
    /// every job runs at the highest priority of itself and every job that needs it, directly
    /// or not, and whenever a job starts no ready job has a higher priority.
    @Test(arguments: 0..<3)
    func randomGraphsAlwaysStartAHighestPriorityReadyJob(batch: Int) async throws {
        var random = LCG(state: UInt64(1000 + batch))
        let count = 7
        for _ in 0..<100 {
            var needs = [[Int]](repeating: [], count: count)
            for job in 0..<count { for need in 0..<job where random.next(3) == 0 { needs[job].append(need) } }
            let own = (0..<count).map { _ in Priority.allCases[random.next(4)] }
            var order = Array(0..<count)
            for index in order.indices.reversed() { order.swapAt(index, random.next(index + 1)) }

            // Effective priority: the highest of the job and everything that needs it.
            var effective = own
            for job in (0..<count).reversed() {
                for need in needs[job] where effective[need] < effective[job] { effective[need] = effective[job] }
            }

            let log = StartLog()
            var workflow = Workflow()
            for job in order {
                try workflow.add(JobID("\(job)"), needs: needs[job].map { JobID("\($0)") }, priority: own[job]) { ctx in
                    log.record(ctx)
                }
            }
            let report = try await workflow.start(RunOptions(maxConcurrency: 1)).report()
            let context = "needs \(needs), priorities \(own), order \(order)"
            #expect(report.status == .succeeded, "\(context)")

            let started = log.order.compactMap { Int($0.description) }
            #expect(started.count == count, "\(context)")
            var done = Set<Int>()
            for job in started {
                #expect(log.priority(of: JobID("\(job)")) == effective[job], "job \(job): \(context)")
                let ready = (0..<count).filter { !done.contains($0) && needs[$0].allSatisfy(done.contains) }
                #expect(ready.contains(job), "job \(job) started before its needs: \(context)")
                let best = ready.map { effective[$0] }.max()
                #expect(effective[job] == best, "job \(job) started over a higher-priority ready job: \(context), started \(started)")
                done.insert(job)
            }
        }
    }

    // MARK: - Task priority

    /// `Priority.taskPriority` is documented as "the Swift task priority a job of this priority
    /// runs at". Two userInteractive jobs become ready together while one worker was started
    /// for a background job and is idle: whichever worker runs them, they run at least at
    /// `.high`.
    @Test func aJobRunsAtLeastAtItsTaskPriority() async throws {
        let gate = Gate()
        let seen = Locked<[JobID: TaskPriority]>([:])
        var workflow = Workflow()
        try workflow.add("hold") { _ in await gate.wait() }
        try workflow.add("bg", priority: .background) { _ in }
        for job: JobID in ["urgent1", "urgent2"] {
            try workflow.add(job, needs: ["hold"], priority: .userInteractive) { ctx in
                let priority = Task.basePriority ?? Task.currentPriority
                seen.withLock { $0[ctx.id] = priority }
            }
        }
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let run = try workflow.start(RunOptions(maxConcurrency: 2, events: continuation))
        for await event in stream where event == .finished("bg", .succeeded) { break }
        await gate.arrivals(atLeast: 1)
        gate.open()
        let report = await run.report()
        #expect(report.status == .succeeded)
        for job: JobID in ["urgent1", "urgent2"] {
            let priority = try #require(seen.withLock { $0[job] })
            #expect(priority >= Priority.userInteractive.taskPriority, "\(job) ran at \(priority)")
        }
    }

    // MARK: - Through lanes

    /// In an ordered lane a job waits for the job added before it, so that job is raised like a
    /// need: a background job ahead of a userInteractive one in a serial lane runs before
    /// ready utility jobs, at userInteractive priority (no inversion through the lane).
    @Test(arguments: 0..<10)
    func aLanePredecessorOfAnUrgentJobIsRaised(repetition: Int) async throws {
        let gate = Gate()
        let order = Locked<[(JobID, Priority)]>([])
        var workflow = Workflow()
        workflow.lane("serial", width: 1)
        try workflow.add("hold", priority: .userInteractive) { _ in await gate.wait() }
        for id: JobID in ["u1", "u2", "u3"] {
            try workflow.add(id, needs: ["hold"]) { ctx in order.withLock { $0.append((ctx.id, ctx.priority)) } }
        }
        try workflow.add("early", needs: ["hold"], lane: "serial", priority: .background) { ctx in
            order.withLock { $0.append((ctx.id, ctx.priority)) }
        }
        try workflow.add("late", lane: "serial", priority: .userInteractive) { ctx in
            order.withLock { $0.append((ctx.id, ctx.priority)) }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 1))
        await gate.arrivals(atLeast: 1)
        gate.open()
        let report = await run.report()
        #expect(report.status == .succeeded)
        let seen = order.withLock { $0 }
        #expect(seen.map(\.0) == ["early", "late", "u1", "u2", "u3"])
        #expect(seen.first?.1 == .userInteractive)
    }
}
