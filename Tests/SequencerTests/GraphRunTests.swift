import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Synchronization
import Testing

/// Running graphs: a job starts only after everything it needs succeeded, reads their values,
/// runs exactly once, and no more than `maxConcurrency` jobs run at once. Checked on every DAG
/// of up to 5 jobs, on a 200,000-job random DAG, and with gates where timing matters.
@Suite struct GraphRunTests {
    // MARK: - Helpers

    /// A DAG on jobs `0..<count` whose numbering is a topological order: job `i` needs only
    /// jobs below `i`.
    struct DAG: CustomStringConvertible, Sendable {
        let needs: [[Int]]
        var count: Int { needs.count }

        var description: String {
            "[" + needs.indices.map { "\($0)<-\(needs[$0].map(String.init).joined(separator: ","))" }
                .joined(separator: " ") + "]"
        }

        /// Every DAG on `count` jobs: one for every subset of the edges `j -> i` with `j < i`.
        static func all(jobs count: Int) -> [DAG] {
            var edges: [(need: Int, job: Int)] = []
            for job in 0..<count { for need in 0..<job { edges.append((need, job)) } }
            return (0..<(1 << edges.count)).map { mask in
                var needs = [[Int]](repeating: [], count: count)
                for (bit, edge) in edges.enumerated() where mask & (1 << bit) != 0 {
                    needs[edge.job].append(edge.need)
                }
                return DAG(needs: needs)
            }
        }
    }

    static func permutations(of count: Int) -> [[Int]] {
        guard count > 0 else { return [[]] }
        var result: [[Int]] = []
        for rest in permutations(of: count - 1) {
            for position in 0...rest.count {
                var permutation = rest
                permutation.insert(count - 1, at: position)
                result.append(permutation)
            }
        }
        return result
    }

    static func name(_ job: Int) -> JobID { JobID("j\(job)") }

    /// What the bodies did, in order.
    final class Trace: Sendable {
        enum Entry: Hashable, Sendable {
            case start(Int)
            case end(Int)
        }

        private let log = Locked<[Entry]>([])
        func record(_ entry: Entry) { log.withLock { $0.append(entry) } }
        var entries: [Entry] { log.withLock { $0 } }
    }

    /// Handles filled in as jobs are added, read by bodies when they run (a need may be
    /// added after the job that reads it).
    final class Handles<T: Sendable>: Sendable {
        private let slots: Locked<[JobHandle<T>?]>
        init(count: Int) { slots = Locked([JobHandle<T>?](repeating: nil, count: count)) }
        subscript(job: Int) -> JobHandle<T>? {
            get { slots.withLock { $0[job] } }
            set { slots.withLock { $0[job] = newValue } }
        }
    }

    final class AtomicCell: Sendable {
        let value = Atomic<Int>(0)
    }

    /// A fixed number of atomic integers.
    final class AtomicArray: Sendable {
        let cells: [AtomicCell]
        init(count: Int) { cells = (0..<count).map { _ in AtomicCell() } }
        /// Adds one and returns the new value.
        func increment(_ index: Int) -> Int { cells[index].value.add(1, ordering: .acquiringAndReleasing).newValue }
        func load(_ index: Int) -> Int { cells[index].value.load(ordering: .acquiring) }
    }

    /// Waits in the event stream until `wanted` arrives; returns the events seen on the way.
    static func wait(
        for wanted: RunEvent, in events: inout AsyncStream<RunEvent>.Iterator
    ) async -> [RunEvent] {
        var seen: [RunEvent] = []
        while let event = await events.next() {
            seen.append(event)
            if event == wanted { return seen }
        }
        Issue.record("the run ended before \(wanted); saw \(seen)")
        return seen
    }

    /// Runs `dag`, adding its jobs in `addOrder`, and checks that every job ran exactly once,
    /// after all it needs ended, with their values, within `maxConcurrency`.
    static func runAndCheck(_ dag: DAG, addOrder: [Int], maxConcurrency: Int) async throws {
        let count = dag.count
        let trace = Trace()
        let handles = Handles<String>(count: count)
        var workflow = Workflow()
        for job in addOrder {
            let needs = dag.needs[job]
            handles[job] = try workflow.add(name(job), needs: needs.map(name)) { ctx in
                trace.record(.start(job))
                var parts: [String] = []
                for need in needs { parts.append(try await ctx.value(of: try #require(handles[need]))) }
                trace.record(.end(job))
                return "\(job)(\(parts.joined(separator: ",")))"
            }
        }
        let report = try await workflow.start(RunOptions(maxConcurrency: maxConcurrency)).report()

        var expected = [String](repeating: "", count: count)
        for job in 0..<count {
            expected[job] = "\(job)(\(dag.needs[job].map { expected[$0] }.joined(separator: ",")))"
        }

        var problems: [String] = []
        if report.status != .succeeded { problems.append("status \(report.status)") }
        let entries = trace.entries
        var position: [Trace.Entry: Int] = [:]
        for (index, entry) in entries.enumerated() {
            if position.updateValue(index, forKey: entry) != nil { problems.append("\(entry) twice") }
        }
        var running = 0
        for entry in entries {
            if case .start = entry { running += 1 } else { running -= 1 }
            if running > maxConcurrency { problems.append("\(running) bodies at once") }
        }
        for job in 0..<count {
            guard let start = position[.start(job)], let end = position[.end(job)] else {
                problems.append("job \(job) did not run")
                continue
            }
            if end < start { problems.append("job \(job) ended before it started") }
            for need in dag.needs[job] where (position[.end(need)] ?? Int.max) > start {
                problems.append("job \(job) started before its need \(need) ended")
            }
            if report.value(of: try #require(handles[job])) != expected[job] {
                problems.append("job \(job) value \(String(describing: report.value(of: try #require(handles[job]))))")
            }
            let outcome = try #require(report.outcome(of: name(job)))
            if outcome.status != .succeeded || outcome.attempts != 1 || outcome.error != nil {
                problems.append("job \(job) outcome \(outcome)")
            }
            for need in dag.needs[job] {
                let needOutcome = try #require(report.outcome(of: name(need)))
                if let ended = needOutcome.endedAt, let started = outcome.startedAt, ended <= started { continue }
                problems.append("job \(job) timestamps overlap need \(need)")
            }
        }
        #expect(problems.isEmpty, "\(dag) added in order \(addOrder), maxConcurrency \(maxConcurrency): \(problems)")
    }

    // MARK: - Every small DAG

    /// Every DAG on `jobs` jobs, each added in every order (needs naming jobs added later),
    /// with maxConcurrency 1, 2 and 4 in turn.
    @Test(arguments: 1...4)
    func everyDAGInEveryAddOrder(jobs: Int) async throws {
        let orders = Self.permutations(of: jobs)
        let limits = [1, 2, 4]
        var runs = 0
        for dag in DAG.all(jobs: jobs) {
            for order in orders {
                try await Self.runAndCheck(dag, addOrder: order, maxConcurrency: limits[runs % limits.count])
                runs += 1
            }
        }
        #expect(runs == (1 << (jobs * (jobs - 1) / 2)) * orders.count)
    }

    /// Every DAG on 5 jobs (1,024 of them), added in order and in reverse order.
    @Test(arguments: [(1, false), (2, true), (5, false)])
    func everyDAGOnFiveJobs(maxConcurrency: Int, reversed: Bool) async throws {
        let order = reversed ? Array((0..<5).reversed()) : Array(0..<5)
        for dag in DAG.all(jobs: 5) {
            try await Self.runAndCheck(dag, addOrder: order, maxConcurrency: maxConcurrency)
        }
    }

    // MARK: - A large random DAG

    /// 200,000 jobs, each needing up to 3 random earlier jobs (the benchmark's graph). Each
    /// body checks that every need finished and reads each need's value; each runs once.
    @Test(arguments: [2, 8])
    func aRandomDAGOf200kJobs(maxConcurrency: Int) async throws {
        let count = 200_000
        let started = AtomicArray(count: count)
        let finished = AtomicArray(count: count)
        let violations = AtomicCell()
        var state: UInt64 = 42
        func random() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }

        var workflow = Workflow()
        var handles: [JobHandle<Int>] = []
        handles.reserveCapacity(count)
        var edges = 0
        for job in 0..<count {
            let draws = min(Int(random() % 4), job)
            var needs: [Int] = []
            for _ in 0..<draws {
                let need = Int(random() % UInt64(job))
                if !needs.contains(need) { needs.append(need) }
            }
            edges += needs.count
            let needJobs = needs
            let needHandles = needs.map { handles[$0] }
            handles.append(try workflow.add(JobID(String(job)), needs: needHandles.map(\.id)) { ctx in
                if started.increment(job) != 1 { violations.value.add(1, ordering: .relaxed) }
                for (need, handle) in zip(needJobs, needHandles) {
                    if finished.load(need) != 1 { violations.value.add(1, ordering: .relaxed) }
                    if try await ctx.value(of: handle) != need { violations.value.add(1, ordering: .relaxed) }
                }
                _ = finished.increment(job)
                return job
            })
        }
        #expect(edges > count, "the graph should have about 1.5 needs per job, has \(edges)")

        let report = try await workflow.start(RunOptions(maxConcurrency: maxConcurrency)).report()
        #expect(report.status == .succeeded)
        #expect(report.count(.succeeded) == count)
        #expect(violations.value.load(ordering: .relaxed) == 0)
        #expect((0..<count).allSatisfy { started.load($0) == 1 && finished.load($0) == 1 })
        #expect(report.value(of: handles[count - 1]) == count - 1)
    }

    // MARK: - Concurrency limits, with gates

    /// `limit * 3` jobs that each wait at a gate: exactly `limit` get in.
    @Test(arguments: [1, 2, 3], 0..<20)
    func maxConcurrencyIsNeverExceeded(limit: Int, iteration: Int) async throws {
        let gate = Gate()
        let meter = ConcurrencyMeter()
        let calls = AtomicArray(count: limit * 3)
        var workflow = Workflow()
        for job in 0..<(limit * 3) {
            try workflow.add(Self.name(job)) { _ in
                _ = calls.increment(job)
                meter.enter()
                await gate.wait()
                meter.leave()
            }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: limit))
        await gate.arrivals(atLeast: limit)
        #expect(run.snapshot.running.count == limit)
        #expect(gate.arrivals == limit)
        gate.open()
        let report = await run.report()
        #expect(report.status == .succeeded)
        #expect(meter.peak == limit)
        #expect((0..<(limit * 3)).allSatisfy { calls.load($0) == 1 })
    }

    /// A wide, layered graph under a limit of 2: the limit holds while dependents become ready.
    @Test(arguments: 0..<20)
    func maxConcurrencyHoldsInALayeredGraph(iteration: Int) async throws {
        let gate = Gate()
        let meter = ConcurrencyMeter()
        var workflow = Workflow()
        try workflow.add("root") { _ in }
        for job in 0..<6 {
            try workflow.add(Self.name(job), needs: ["root"]) { _ in
                meter.enter()
                await gate.wait()
                meter.leave()
            }
            try workflow.add(JobID("after-\(job)"), needs: [Self.name(job)]) { _ in
                meter.enter()
                await Task.yield()
                meter.leave()
            }
        }
        try workflow.add("sink", needs: (0..<6).map { JobID("after-\($0)") }) { _ in }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        await gate.arrivals(atLeast: 2)
        #expect(run.snapshot.running.count == 2)
        gate.open()
        let report = await run.report()
        #expect(report.status == .succeeded)
        #expect(meter.peak == 2)
        #expect(report.criticalPath.first == "root")
        #expect(report.criticalPath.last == "sink")
    }

    // MARK: - Needs and values

    /// `d` needs `b` and `c`: when `c` has finished and `b` is held, `d` is not running, and it
    /// starts only after `b` finished.
    @Test(arguments: 0..<50)
    func aDependentWaitsForEveryNeed(iteration: Int) async throws {
        let gate = Gate()
        let bFinished = AtomicCell()
        var workflow = Workflow()
        let a = try workflow.add("a") { _ in 1 }
        let b = try workflow.add("b", needs: ["a"]) { ctx in
            await gate.wait()
            let value = try await ctx.value(of: a) + 10
            bFinished.value.store(1, ordering: .releasing)
            return value
        }
        let c = try workflow.add("c", needs: ["a"]) { ctx in try await ctx.value(of: a) + 100 }
        let d = try workflow.add("d", needs: ["b", "c"]) { ctx in
            #expect(bFinished.value.load(ordering: .acquiring) == 1)
            return try await ctx.value(of: b) + ctx.value(of: c)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let run = try workflow.start(RunOptions(maxConcurrency: 4, events: continuation))
        var events = stream.makeAsyncIterator()
        var seen = await Self.wait(for: .finished("c", .succeeded), in: &events)
        await gate.arrivals(atLeast: 1)
        #expect(!run.snapshot.running.contains("d"))
        #expect(run.snapshot.running.contains("b"))
        gate.open()
        let report = await run.report()
        while let event = await events.next() { seen.append(event) }

        #expect(report.status == .succeeded)
        #expect(report.value(of: d) == 11 + 101)
        let startD = try #require(seen.firstIndex(of: .started("d")))
        let endB = try #require(seen.firstIndex(of: .finished("b", .succeeded)))
        let endC = try #require(seen.firstIndex(of: .finished("c", .succeeded)))
        #expect(endB < startD && endC < startD)
        #expect(seen.filter { $0 == .started("d") }.count == 1)
        #expect(seen.last == .runFinished(.succeeded))
    }

    struct Config: Sendable, Equatable {
        var title: String
        var retries: Int
    }

    @Test func valuesOfEveryTypeReachDependents() async throws {
        var workflow = Workflow()
        let config = try workflow.add("config") { _ in Config(title: "hello", retries: 3) }
        let numbers = try workflow.add("numbers") { _ in [1, 2, 3] }
        let nothing = try workflow.add("nothing") { _ in }
        let missing = try workflow.add("missing") { _ -> Int? in nil }
        let combined = try workflow.add("combined", needs: ["config", "numbers", "nothing", "missing"]) { ctx in
            let config = try await ctx.value(of: config)
            let numbers = try await ctx.value(of: numbers)
            try await ctx.value(of: nothing)
            let missing = try await ctx.value(of: missing)
            return "\(config.title) \(numbers.reduce(0, +) * config.retries) \(missing == nil)"
        }
        let report = try await workflow.start().report()
        #expect(report.status == .succeeded)
        #expect(report.value(of: combined) == "hello 18 true")
        #expect(report.value(of: config) == Config(title: "hello", retries: 3))
        #expect(report.value(of: numbers) == [1, 2, 3])
        #expect(report.value(of: nothing) != nil)
    }

    @Test func readingTheValueOfAJobThatIsNotANeedFails() async throws {
        var workflow = Workflow()
        try workflow.add("a") { _ in 1 }
        let b = try workflow.add("b") { _ in 2 }
        try workflow.add("c", needs: ["a"]) { ctx in try await ctx.value(of: b) }
        let report = try await workflow.start(RunOptions(keepGoing: true)).report()
        let outcome = try #require(report.outcome(of: "c"))
        #expect(outcome.status == .failed)
        let error = try #require(outcome.error?.underlying as? WorkflowError)
        #expect(error.code == .notANeed)
        #expect(report.status == .failed)
    }

    @Test func aWorkflowRunsAgainFromTheStart() async throws {
        let calls = AtomicArray(count: 3)
        var workflow = Workflow()
        let a = try workflow.add("a") { _ in
            _ = calls.increment(0)
            return 5
        }
        try workflow.add("b", needs: ["a"]) { ctx in
            _ = calls.increment(1)
            return try await ctx.value(of: a) * 2
        }
        let first = try await workflow.start().report()
        let second = try await workflow.start().report()
        #expect(first.status == .succeeded && second.status == .succeeded)
        #expect(calls.load(0) == 2 && calls.load(1) == 2)
    }

    @Test func anEmptyWorkflowSucceedsAtOnce() async throws {
        let report = try await Workflow().start().report()
        #expect(report.status == .succeeded)
        #expect(report.outcomes.isEmpty)
        #expect(report.criticalPath.isEmpty)
    }
}
