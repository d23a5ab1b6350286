import Sequencer
import Synchronization
import Testing

/// `Workflow.add` and `Workflow.validate()`: duplicate IDs, unknown needs, cycles (named in
/// order), needs that name jobs added later, and validation of very long graphs without
/// recursion.
@Suite struct ValidationTests {
    /// Counts body calls, so a test can tell that validation ran nothing.
    final class CallCounter: Sendable {
        private let calls = Atomic<Int>(0)
        func hit() { calls.add(1, ordering: .relaxed) }
        var count: Int { calls.load(ordering: .relaxed) }
    }

    /// Holds a handle that is known only after the job it names was added.
    final class LateHandle<T: Sendable>: Sendable {
        private let handle = Locked<JobHandle<T>?>(nil)
        func set(_ value: JobHandle<T>) { handle.withLock { $0 = value } }
        func get() throws -> JobHandle<T> { try #require(handle.withLock { $0 }) }
    }

    static func id(_ index: Int) -> JobID { JobID("j\(index)") }

    // MARK: - Duplicate IDs

    /// A duplicate ID is reported by validation, before anything runs, naming the ID; `add`
    /// only appends (IDs are indexed in batches, see `Workflow+Names.swift`).
    @Test func aDuplicateIDIsRejectedBeforeAnythingRuns() async throws {
        var workflow = Workflow()
        let calls = CallCounter()
        try workflow.add("a") { _ in calls.hit() }
        try workflow.add("a") { _ in calls.hit() }
        let error = #expect(throws: WorkflowError.self) { try workflow.validate() }
        #expect(error?.code == .duplicateJob)
        #expect(error?.jobs == ["a"])
        #expect(error?.message.contains("'a'") == true)
        let startError = #expect(throws: WorkflowError.self) { _ = try workflow.start() }
        #expect(startError?.code == .duplicateJob)
        #expect(calls.count == 0)
    }

    /// Wherever the second use falls (in the same batch of names as the first, or hundreds of
    /// jobs later), validation finds it.
    @Test(arguments: [1, 10, 255, 256, 257, 1000])
    func aDuplicateIsRejectedWhicheverJobsCameBetween(gap: Int) throws {
        var workflow = Workflow()
        for index in 0..<gap { try workflow.add(Self.id(index)) { _ in } }
        try workflow.validate()
        try workflow.add(Self.id(0)) { _ in }
        for index in gap..<(gap + 300) { try workflow.add(Self.id(index)) { _ in } }
        let error = #expect(throws: WorkflowError.self) { try workflow.validate() }
        #expect(error?.code == .duplicateJob)
        #expect(error?.jobs == [Self.id(0)])
    }

    // MARK: - Needs

    @Test func needsMayNameJobsAddedLater() async throws {
        var workflow = Workflow()
        let later = LateHandle<String>()
        try workflow.add("first", needs: ["second"]) { ctx in
            try await ctx.value(of: later.get()) + "!"
        }
        later.set(try workflow.add("second") { _ in "hello" })
        try workflow.validate()
        let report = try await workflow.start().report()
        #expect(report.status == .succeeded)
        #expect(report.outcome(of: "first")?.status == .succeeded)
        #expect(report.criticalPath == ["second", "first"])
    }

    @Test func anUnknownNeedNamesBothJobsAndNothingRuns() throws {
        var workflow = Workflow()
        let calls = CallCounter()
        try workflow.add("fetch") { _ in calls.hit() }
        try workflow.add("render", needs: ["fetch", "ghost"]) { _ in calls.hit() }

        let error = #expect(throws: WorkflowError.self) { try workflow.validate() }
        #expect(error?.code == .unknownNeed)
        #expect(error?.message.contains("'render'") == true)
        #expect(error?.message.contains("'ghost'") == true)
        #expect(error?.jobs == ["render", "ghost"])

        let startError = #expect(throws: WorkflowError.self) { _ = try workflow.start() }
        #expect(startError?.code == .unknownNeed)
        #expect(calls.count == 0)
    }

    @Test func anUnknownNeedIsFoundBeforeTheJobItNamesIsAdded() throws {
        var workflow = Workflow()
        try workflow.add("b", needs: ["a"]) { _ in }
        #expect(throws: WorkflowError.self) { try workflow.validate() }
        try workflow.add("a") { _ in }
        try workflow.validate()
    }

    @Test func aJobMayNameTheSameNeedTwice() async throws {
        var workflow = Workflow()
        let a = try workflow.add("a") { _ in 3 }
        let b = try workflow.add("b", needs: ["a", "a"]) { ctx in try await ctx.value(of: a) + 1 }
        try workflow.validate()
        let report = try await workflow.start().report()
        #expect(report.status == .succeeded)
        #expect(report.value(of: b) == 4)
    }

    // MARK: - Cycles

    @Test func aCycleNamesEveryJobInOrder() throws {
        var workflow = Workflow()
        try workflow.add("a", needs: ["b"]) { _ in }
        try workflow.add("b", needs: ["c"]) { _ in }
        try workflow.add("c", needs: ["a"]) { _ in }
        let error = #expect(throws: WorkflowError.self) { try workflow.validate() }
        #expect(error?.code == .cycle)
        #expect(error?.message == "dependency cycle: a -> b -> c -> a")
        #expect(error?.description == "dependency cycle: a -> b -> c -> a")
        #expect(error?.jobs == ["a", "b", "c", "a"])
    }

    @Test(arguments: [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    func aCycleIsNamedInNeedOrderWhateverTheAddOrder(addOrder: [Int]) throws {
        // a needs b, b needs c, c needs a: any rotation of a -> b -> c -> a is right, the
        // reverse direction is not.
        let names: [JobID] = ["a", "b", "c"]
        var workflow = Workflow()
        for job in addOrder {
            try workflow.add(names[job], needs: [names[(job + 1) % 3]]) { _ in }
        }
        let error = try #require(#expect(throws: WorkflowError.self) { try workflow.validate() })
        #expect(error.code == .cycle)
        let rotations: [[JobID]] = [["a", "b", "c", "a"], ["b", "c", "a", "b"], ["c", "a", "b", "c"]]
        #expect(rotations.contains(error.jobs), "\(error.jobs)")
        #expect(error.message == "dependency cycle: " + error.jobs.map(\.description).joined(separator: " -> "))
    }

    @Test func aJobThatNeedsItselfIsACycle() throws {
        var workflow = Workflow()
        try workflow.add("before") { _ in }
        try workflow.add("a", needs: ["before", "a"]) { _ in }
        let error = #expect(throws: WorkflowError.self) { try workflow.validate() }
        #expect(error?.code == .cycle)
        #expect(error?.message == "dependency cycle: a -> a")
    }

    @Test func aCycleNamesOnlyTheJobsOnIt() throws {
        // "x" and "y" hang off the cycle (they need a job on it) and are added first.
        var workflow = Workflow()
        try workflow.add("y", needs: ["x"]) { _ in }
        try workflow.add("x", needs: ["b"]) { _ in }
        try workflow.add("root") { _ in }
        try workflow.add("a", needs: ["root", "c"]) { _ in }
        try workflow.add("b", needs: ["a"]) { _ in }
        try workflow.add("c", needs: ["b"]) { _ in }
        let error = #expect(throws: WorkflowError.self) { try workflow.validate() }
        #expect(error?.code == .cycle)
        #expect(error?.message == "dependency cycle: a -> c -> b -> a")
    }

    @Test func startRejectsACycleAndRunsNothing() throws {
        var workflow = Workflow()
        let calls = CallCounter()
        try workflow.add("free") { _ in calls.hit() }
        try workflow.add("a", needs: ["b"]) { _ in calls.hit() }
        try workflow.add("b", needs: ["a"]) { _ in calls.hit() }
        let error = #expect(throws: WorkflowError.self) { _ = try workflow.start() }
        #expect(error?.code == .cycle)
        #expect(error?.message == "dependency cycle: a -> b -> a")
        #expect(calls.count == 0)
    }

    /// Every directed graph on up to 4 jobs (with self-needs up to 3 jobs): `validate()`
    /// throws exactly when there is a cycle, and then names a real one, in order.
    @Test(arguments: [(1, true), (2, true), (3, true), (4, false)])
    func everySmallGraphIsJudgedRight(jobs: Int, selfNeeds: Bool) throws {
        var edges: [(need: Int, job: Int)] = []
        for job in 0..<jobs {
            for need in 0..<jobs where need != job || selfNeeds { edges.append((need, job)) }
        }
        for mask in 0..<(1 << edges.count) {
            var needs = [[Int]](repeating: [], count: jobs)
            for (bit, edge) in edges.enumerated() where mask & (1 << bit) != 0 {
                needs[edge.job].append(edge.need)
            }
            var workflow = Workflow()
            for job in 0..<jobs { try workflow.add(Self.id(job), needs: needs[job].map(Self.id)) { _ in } }

            // Reachability by repeated relaxation: a cycle exists iff a job reaches itself.
            var reaches = [[Bool]](repeating: [Bool](repeating: false, count: jobs), count: jobs)
            for job in 0..<jobs { for need in needs[job] { reaches[job][need] = true } }
            for middle in 0..<jobs {
                for from in 0..<jobs where reaches[from][middle] {
                    for to in 0..<jobs where reaches[middle][to] { reaches[from][to] = true }
                }
            }
            let hasCycle = (0..<jobs).contains { reaches[$0][$0] }

            do {
                try workflow.validate()
                #expect(!hasCycle, "missed a cycle in \(needs)")
            } catch let error as WorkflowError {
                #expect(hasCycle, "no cycle in \(needs), but: \(error)")
                #expect(error.code == .cycle)
                let cycle = error.jobs
                #expect(cycle.count >= 2 && cycle.first == cycle.last, "\(needs): \(cycle)")
                #expect(Set(cycle.dropLast()).count == cycle.count - 1, "a job repeats in \(cycle)")
                for (job, need) in zip(cycle, cycle.dropFirst()) {
                    let jobIndex = try #require(workflow.jobIDs.firstIndex(of: job))
                    let needIndex = try #require(workflow.jobIDs.firstIndex(of: need))
                    #expect(needs[jobIndex].contains(needIndex), "\(job) does not need \(need) in \(needs)")
                }
                #expect(error.message == "dependency cycle: " + cycle.map(\.description).joined(separator: " -> "))
            }
        }
    }

    // MARK: - Long graphs

    @Test func aMillionJobChainValidates() throws {
        var workflow = Workflow()
        let count = 1_000_000
        try workflow.add(Self.id(0)) { _ in }
        for index in 1..<count { try workflow.add(Self.id(index), needs: [Self.id(index - 1)]) { _ in } }
        #expect(workflow.count == count)
        try workflow.validate()
    }

    @Test func aMillionJobChainAddedInReverseValidates() throws {
        // Each job needs the job added after it.
        var workflow = Workflow()
        let count = 1_000_000
        for index in 0..<(count - 1) { try workflow.add(Self.id(index), needs: [Self.id(index + 1)]) { _ in } }
        try workflow.add(Self.id(count - 1)) { _ in }
        try workflow.validate()
    }

    @Test func aLongCycleIsNamedWhole() throws {
        // 100,000 jobs in one circle, each needing the job added after it: found without
        // recursion and named from its first-added job.
        var workflow = Workflow()
        let count = 100_000
        for index in 0..<count { try workflow.add(Self.id(index), needs: [Self.id((index + 1) % count)]) { _ in } }
        let error = try #require(#expect(throws: WorkflowError.self) { try workflow.validate() })
        #expect(error.code == .cycle)
        #expect(error.jobs.count == count + 1)
        #expect(error.jobs == (0...count).map { Self.id($0 % count) })
    }

    // MARK: - Validation runs nothing, and a workflow is a value

    @Test func validateRunsNoBody() throws {
        var workflow = Workflow()
        let calls = CallCounter()
        for index in 0..<5 {
            try workflow.add(Self.id(index), needs: index > 0 ? [Self.id(index - 1)] : []) { _ in calls.hit() }
        }
        try workflow.validate()
        try workflow.validate()
        #expect(calls.count == 0)
    }

    @Test func aCopyOfAWorkflowIsIndependent() throws {
        var original = Workflow()
        try original.add("a") { _ in }
        var copy = original
        try copy.add("b", needs: ["missing"]) { _ in }
        try original.validate()
        #expect(throws: WorkflowError.self) { try copy.validate() }
        #expect(original.jobIDs == ["a"])
        #expect(copy.jobIDs == ["a", "b"])
        // The original can take the ID "b" for itself, once.
        try original.add("b") { _ in }
        try original.validate()
        try original.add("b") { _ in }
        #expect(throws: WorkflowError.self) { try original.validate() }
    }
}
