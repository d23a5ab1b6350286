import Testing

@testable import SequencerNinja

@Suite struct BuildPlanTests {
    func graph(_ text: String) throws -> NinjaGraph {
        try ManifestParser.parse("rule cat\n  command = cat $in > $out\n" + text)
    }

    func paths(_ plan: BuildPlan, _ graph: NinjaGraph) -> [String] {
        plan.order.map { graph.nodes[Int(graph.edges[Int($0)].outputs[0])].path }
    }

    @Test func edgesComeAfterTheEdgesOfTheirInputsOfEveryKind() throws {
        let graph = try graph("build a: cat src\nbuild b: cat a || o\nbuild o: cat src\nbuild c: cat b | a\nbuild unrelated: cat src\n")
        let plan = try BuildPlan(graph: graph, targets: [try #require(graph.node(at: "c"))])
        let order = paths(plan, graph)
        #expect(Set(order) == ["a", "b", "o", "c"])
        for (before, after) in [("a", "b"), ("o", "b"), ("b", "c")] {
            #expect(try #require(order.firstIndex(of: before)) < #require(order.firstIndex(of: after)))
        }
    }

    @Test func validationsAreBuiltAsTargetsOfTheirOwn() throws {
        let graph = try graph("build out: cat src |@ check\nbuild check: cat src\n")
        let plan = try BuildPlan(graph: graph, targets: [try #require(graph.node(at: "out"))])
        #expect(Set(paths(plan, graph)) == ["out", "check"])
    }

    /// As ninja words it: from the node where the cycle closes, not another output of its edge.
    @Test func aCycleIsNamedWhole() throws {
        let graph = try graph("build a b: cat c\nbuild c: cat a\n")
        #expect(throws: BuildPlan.Failure(message: "dependency cycle: a -> c -> a")) {
            try BuildPlan(graph: graph, targets: [graph.node(at: "b")!])
        }
        let longer = try self.graph("build x: cat y\nbuild y: cat z\nbuild z: cat x\n")
        #expect(throws: BuildPlan.Failure(message: "dependency cycle: x -> y -> z -> x")) {
            try BuildPlan(graph: longer, targets: [longer.node(at: "x")!])
        }
    }

    @Test func aLongChainNeedsNoDeepStack() throws {
        var text = "build n0: cat src\n"
        for index in 1..<20_000 { text += "build n\(index): cat n\(index - 1)\n" }
        let graph = try graph(text)
        let plan = try BuildPlan(graph: graph, targets: [try #require(graph.node(at: "n19999"))])
        #expect(plan.order.count == 20_000)
    }
}
