import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A child's needs must not wait for one of its ancestors: the child could never start (its need
/// waits for the ancestor, which waits for the child). `addChild` rejects a need that waits for an
/// ancestor, directly or through the jobs it needs, its unfinished children and the leader it
/// joined; and a job with a key never joins a leader that waits for it through the needs of its
/// descendants: it runs its own body. Each test used to hang until the run was cancelled.
@Suite(.suiteTimeLimit)
struct ChildNeedsTests {
    /// What `addChild` threw, if anything.
    private static func attempt(_ add: () throws -> Void) -> WorkflowError? {
        do {
            try add()
            return nil
        } catch let error as WorkflowError {
            return error
        } catch {
            Issue.record("addChild threw \(error)")
            return nil
        }
    }

    /// `x` needs `p`; `p`'s child needs `x`. Only a direct need on an ancestor was rejected, so
    /// the child was added and waited for `x`, which waited for `p`, which waited for the child.
    @Test func aNeedOnAJobThatNeedsTheParentIsRejected() async throws {
        let rejection = LockedValue<WorkflowError?>(nil)
        var workflow = Workflow()
        try workflow.add("p") { ctx in
            let error = Self.attempt { try ctx.addChild("c", needs: ["x"]) { _ in } }
            rejection.withLock { $0 = error }
            try await ctx.waitForChildren()
        }
        try workflow.add("x", needs: ["p"]) { _ in }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        let error = try #require(rejection.value, "addChild accepted p/c")
        #expect(error.code == .invalidOption)
        #expect(error.message == "child 'p/c' needs 'x', which waits for 'p' to end ('x' needs 'p'): it could never start")
        #expect(error.jobs == ["p/c", "x", "p"])
        #expect(report.status == .succeeded)
        #expect(report.outcome(of: "p/c") == nil)
    }

    /// The same through two needs, to a grandparent: `x` needs `y`, `y` needs `g`; `g`'s
    /// grandchild needs `x`.
    @Test func aNeedOnAJobThatNeedsAnAncestorTransitivelyIsRejected() async throws {
        let rejection = LockedValue<WorkflowError?>(nil)
        var workflow = Workflow()
        try workflow.add("g") { ctx in
            try ctx.addChild("p") { ctx in
                let error = Self.attempt { try ctx.addChild("c", needs: ["x"]) { _ in } }
                rejection.withLock { $0 = error }
            }
            try await ctx.waitForChildren()
        }
        try workflow.add("y", needs: ["g"]) { _ in }
        try workflow.add("x", needs: ["y"]) { _ in }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        let error = try #require(rejection.value, "addChild accepted g/p/c")
        #expect(error.code == .invalidOption)
        #expect(error.message == "child 'g/p/c' needs 'x', which waits for 'g' to end ('x' needs 'y', 'y' needs 'g'): it could never start")
        #expect(error.jobs == ["g/p/c", "x", "y", "g"])
        #expect(report.status == .succeeded)
    }

    /// `q`'s child `q/x` needs `p` (not its ancestor: accepted); then `p`'s child needs `q`, which
    /// waits for `q/x`, which waits for `p`.
    @Test func aNeedOnAJobWhoseChildNeedsTheParentIsRejected() async throws {
        let (added, rejection) = (Gate(), LockedValue<WorkflowError?>(nil))
        var workflow = Workflow()
        try workflow.add("q") { ctx in
            try ctx.addChild("x", needs: ["p"]) { _ in }
            added.open()
            try await ctx.waitForChildren()
        }
        try workflow.add("p") { ctx in
            await added.wait()
            let error = Self.attempt { try ctx.addChild("c", needs: ["q"]) { _ in } }
            rejection.withLock { $0 = error }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        let error = try #require(rejection.value, "addChild accepted p/c")
        #expect(error.message == "child 'p/c' needs 'q', which waits for 'p' to end ('q' waits for its child 'q/x', 'q/x' needs 'p'): it could never start")
        #expect(report.status == .succeeded)
    }

    /// `p` leads `k`; `j`, with key `k`, joined it. `p`'s child needs `j`, which ends when `p` ends.
    @Test func aNeedOnAJobThatJoinedTheParentIsRejected() async throws {
        let (joined, rejection) = (Gate(), LockedValue<WorkflowError?>(nil))
        var workflow = Workflow()
        let p = try workflow.add("p", coalesce: "k") { ctx in
            await joined.wait()
            let error = Self.attempt { try ctx.addChild("c", needs: ["j"]) { _ in } }
            rejection.withLock { $0 = error }
            try await ctx.waitForChildren()
            return "p"
        }
        let j = try workflow.add("j", coalesce: "k") { _ in "j" }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 2))
        await events.wait(for: .started("j"))  // it joined p
        joined.open()
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        let error = try #require(rejection.value, "addChild accepted p/c")
        #expect(error.message == "child 'p/c' needs 'j', which waits for 'p' to end ('j' joined 'p'): it could never start")
        #expect(report.value(of: p) == "p")
        #expect(report.value(of: j) == "p")
    }

    /// `p` leads `k` and adds a child that needs `j`, with key `k`, which is taken afterwards (its
    /// need `g` ends then). `p` waits for its child, which waits for `j`: `j` runs its own body.
    /// `waits(_:for:)` did not follow needs, so `j` joined `p`.
    @Test(arguments: 0..<10)
    func aJobNeededByTheLeadersChildRunsItsOwnBody(repetition: Int) async throws {
        let (added, bodies) = (Gate(), LockedValue<[String]>([]))
        var workflow = Workflow()
        let p = try workflow.add("p", coalesce: "k") { ctx in
            let c = try ctx.addChild("c", needs: ["j"]) { _ in "c" }
            added.open()
            return try await ctx.value(of: c) + "p"
        }
        try workflow.add("g") { _ in await added.wait() }
        let j = try workflow.add("j", needs: ["g"], coalesce: "k") { _ in
            bodies.withLock { $0.append("j") }
            return "j"
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(bodies.value == ["j"])
        #expect(report.value(of: j) == "j")
        #expect(report.value(of: p) == "cp")
        #expect(report.outcome(of: "j")?.attempts == 1)
    }

    /// The same through a sibling: `p`'s child `c` needs its sibling `s`, which needs `j`.
    @Test(arguments: 0..<10)
    func aJobNeededThroughASiblingRunsItsOwnBody(repetition: Int) async throws {
        let (added, bodies) = (Gate(), LockedValue<[String]>([]))
        var workflow = Workflow()
        let p = try workflow.add("p", coalesce: "k") { ctx in
            try ctx.addChild("s", needs: ["j"]) { _ in }
            let c = try ctx.addChild("c", needs: ["s"]) { _ in "c" }
            added.open()
            return try await ctx.value(of: c) + "p"
        }
        try workflow.add("g") { _ in await added.wait() }
        let j = try workflow.add("j", needs: ["g"], coalesce: "k") { _ in
            bodies.withLock { $0.append("j") }
            return "j"
        }
        let run = try workflow.start(RunOptions(maxConcurrency: 1))
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(bodies.value == ["j"])
        #expect(report.value(of: j) == "j")
        #expect(report.value(of: p) == "cp")
    }

    /// Random workflows of 3 to 8 jobs (no keys, nothing fails): one job adds `c1` with random
    /// needs among them, and `c2`, which adds `g` with random needs. `addChild` rejects exactly
    /// the children with a need on the adding job or on a job that needs it, directly or not
    /// (such a job cannot start before the adding job ends: it is still waiting, and its needs
    /// form the path); every other child is added and succeeds, and the run always ends.
    @Test(arguments: 0..<100)
    func addChildRejectsExactlyTheNeedsThatWaitForAnAncestor(seed: UInt64) async throws {
        let scenario = NeedScenario(seed: seed)
        let (count, needs, parent, waiting) = (scenario.count, scenario.needs, scenario.parent, scenario.waiting)
        let (childNeeds, grandchildNeeds, maxConcurrency) = (scenario.childNeeds, scenario.grandchildNeeds, scenario.maxConcurrency)
        let name: @Sendable (Int) -> JobID = { JobID("j\($0)") }
        let rejections = LockedValue<[JobID: WorkflowError]>([:])

        var workflow = Workflow()
        for job in 0..<count {
            try workflow.add(name(job), needs: needs[job].map(name)) { ctx in
                guard job == parent else { return }
                let error = Self.attempt { try ctx.addChild("c1", needs: childNeeds.map(name)) { _ in } }
                rejections.withLock { $0[JobID("\(name(job))/c1")] = error }
                try ctx.addChild("c2") { ctx in
                    let error = Self.attempt { try ctx.addChild("g", needs: grandchildNeeds.map(name)) { _ in } }
                    rejections.withLock { $0[JobID("\(name(job))/c2/g")] = error }
                }
                try await ctx.waitForChildren()
            }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: maxConcurrency))
        let report = try #require(await BoundedWait.report(run), "seed \(seed): the run hangs")
        #expect(report.status == .succeeded, "seed \(seed)")
        for (child, chosen) in [("c1", childNeeds), ("c2/g", grandchildNeeds)] {
            let id = JobID("\(name(parent))/\(child)")
            let context = "seed \(seed): \(count) jobs needing \(needs), \(id) needs \(chosen)"
            guard let first = chosen.first(where: waiting.contains) else {
                #expect(rejections.value[id] == nil, "\(context): rejected")
                #expect(report.outcome(of: id)?.status == .succeeded, "\(context)")
                continue
            }
            let error = try #require(rejections.value[id], "\(context): accepted")
            #expect(error.code == .invalidOption, "\(context)")
            #expect(error.message.hasPrefix("child '\(id)' needs '\(name(first))', which waits for "), "\(context): \(error.message)")
            #expect(report.outcome(of: id) == nil, "\(context)")
            // The path: the child, then a chain of needs from `first` to the parent.
            let path = error.jobs
            #expect(path.first == id && path.dropFirst().first == name(first) && path.last == name(parent), "\(context): \(path)")
            for (job, need) in zip(path.dropFirst(), path.dropFirst(2)) {
                let index = Int(job.description.dropFirst())!
                #expect(needs[index].map(name).contains(need), "\(context): \(path)")
            }
        }
    }

    /// The generator makes children rejected for a direct need on their ancestor, for a chain of
    /// needs, at depth 1 and 2, and children accepted.
    @Test func theNeedSweepCoversRejectionsAndAcceptances() {
        let scenarios = (0..<100).map { NeedScenario(seed: UInt64($0)) }
        let all = scenarios.flatMap { scenario in [scenario.childNeeds, scenario.grandchildNeeds].map { (needs: $0, scenario: scenario) } }
        #expect(all.contains { $0.needs.contains($0.scenario.parent) })
        #expect(all.contains { !$0.needs.contains($0.scenario.parent) && $0.needs.contains(where: $0.scenario.waiting.contains) })
        #expect(all.contains { !$0.needs.contains(where: $0.scenario.waiting.contains) })
        #expect(scenarios.contains { $0.grandchildNeeds.contains(where: $0.waiting.contains) })
        #expect(scenarios.contains { scenario in scenario.needs.contains { $0.count == 2 } })
    }

    /// Needs that do not wait for an ancestor are accepted: a job that needs a sibling of the
    /// parent, and a job that needed the parent's ancestor's sibling but has ended.
    @Test func needsThatDoNotWaitForAnAncestorAreAccepted() async throws {
        var workflow = Workflow()
        let p = try workflow.add("p", needs: ["a"]) { ctx in
            let c = try ctx.addChild("c", needs: ["a", "b"]) { _ in 1 }
            return try await ctx.value(of: c)
        }
        try workflow.add("a") { _ in }
        try workflow.add("b", needs: ["a"]) { _ in }
        let run = try workflow.start(RunOptions(maxConcurrency: 2))
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(report.value(of: p) == 1)
    }
}

/// A random workflow for `addChildRejectsExactlyTheNeedsThatWaitForAnAncestor(seed:)`: job `i`
/// (`j<i>`) needs some earlier ones; `parent` adds children needing `childNeeds` and (through a
/// child) `grandchildNeeds`.
private struct NeedScenario {
    let count: Int
    let needs: [[Int]]
    let parent: Int
    /// The jobs that need `parent`, directly or not, and `parent`: none can start before it ends.
    let waiting: Set<Int>
    let childNeeds: [Int]
    let grandchildNeeds: [Int]
    let maxConcurrency: Int

    init(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let count = random.int(3...8)
        var needs: [[Int]] = []
        for job in 0..<count {
            needs.append(job == 0 ? [] : Array(Set((0..<random.pick([0, 1, 1, 2])).map { _ in random.int(0...job - 1) })).sorted())
        }
        let parent = random.int(0...count - 1)
        var waiting: Set<Int> = [parent]
        for job in 0..<count where needs[job].contains(where: waiting.contains) { waiting.insert(job) }
        func pickNeeds() -> [Int] { Array(Set((0..<random.int(1...2)).map { _ in random.int(0...count - 1) })).sorted() }
        (self.count, self.needs, self.parent, self.waiting) = (count, needs, parent, waiting)
        (childNeeds, grandchildNeeds) = (pickNeeds(), pickNeeds())
        maxConcurrency = random.int(1...3)
    }
}
