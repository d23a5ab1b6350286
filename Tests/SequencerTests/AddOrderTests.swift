@testable import Sequencer
import Testing

/// A workflow whose jobs were each added after their needs is not sorted when it is compiled
/// (`Graph.needsComeFirst`): its add order is already a topological order. One with a need
/// added later, or on itself, is sorted and checked for cycles as before.
@Suite struct AddOrderTests {
    /// A chain `a <- b <- c <- d`, plus `d` needing `a`, added in `order` (a permutation of
    /// the four), with `d` at `.userInitiated` and the others at `.background`.
    private func chain(addedIn order: [Int]) throws -> Workflow {
        let needs: [[JobID]] = [[], ["a"], ["b"], ["c", "a"]]
        let names: [JobID] = ["a", "b", "c", "d"]
        var workflow = Workflow()
        for job in order {
            try workflow.add(names[job], needs: needs[job], priority: job == 3 ? .userInitiated : .background) { _ in }
        }
        return workflow
    }

    private func graph(_ workflow: Workflow) throws -> Graph {
        let plan = try Plan(workflow)
        return Graph(needStart: plan.needStart, needs: plan.needs, dependentStart: plan.dependentStart, dependents: plan.dependents)
    }

    @Test func needsAddedFirstNeedNoSort() throws {
        #expect(try graph(chain(addedIn: [0, 1, 2, 3])).needsComeFirst)
        #expect(try !graph(chain(addedIn: [3, 2, 1, 0])).needsComeFirst)
        #expect(try !graph(chain(addedIn: [0, 2, 1, 3])).needsComeFirst)
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        try workflow.add("b", needs: ["a"]) { _ in }
        #expect(try graph(workflow).needsComeFirst)
    }

    /// Whichever way the order was found, each job is raised to the highest priority of the
    /// jobs that wait for it, through the whole chain.
    @Test(arguments: [[0, 1, 2, 3], [3, 2, 1, 0], [0, 2, 1, 3], [1, 3, 0, 2]])
    func prioritiesAreRaisedThroughTheChainInAnyAddOrder(order: [Int]) throws {
        let plan = try Plan(chain(addedIn: order))
        for name in ["a", "b", "c", "d"] as [JobID] {
            let job = try #require(plan.job(name))
            #expect(plan.priority(of: Int(job)) == .userInitiated, "\(name), added in \(order)")
        }
    }

    /// A job that needs itself, or a cycle closed by a job added last, is still a cycle.
    @Test func aCycleIsFoundWhenANeedComesLater() throws {
        var selfNeed = Workflow()
        try selfNeed.add("a", needs: ["a"]) { _ in }
        #expect(throws: WorkflowError.self) { try Plan(selfNeed) }
        var closed = Workflow()
        try closed.add("a", needs: ["c"]) { _ in }
        try closed.add("b", needs: ["a"]) { _ in }
        try closed.add("c", needs: ["b"]) { _ in }
        #expect { try Plan(closed) } throws: { ($0 as? WorkflowError)?.code == .cycle }
    }
}
