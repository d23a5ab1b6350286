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

    /// An input that only a depfile named (a generated header) is walked like any input: its
    /// edge is wanted, even when nothing else wants it, and comes first.
    @Test func discoveredInputsAreWalkedLikeInputs() throws {
        let graph = try graph("build prog: cat a.o b.o\nbuild a.o: cat a.c\nbuild b.o: cat b.c\nbuild gen.h: cat gen.src\n")
        let genH = try #require(graph.node(at: "gen.h"))
        let aO = try #require(graph.node(at: "a.o"))
        let plan = try BuildPlan(graph: graph, targets: [try #require(graph.node(at: "prog"))]) { edge in
            graph.edges[Int(edge)].outputs == [aO] ? [genH] : []
        }
        let order = paths(plan, graph)
        #expect(Set(order) == ["prog", "a.o", "b.o", "gen.h"])
        #expect(try #require(order.firstIndex(of: "gen.h")) < #require(order.firstIndex(of: "a.o")))
        // Without what was discovered, gen.h is not wanted.
        #expect(!paths(try BuildPlan(graph: graph, targets: [try #require(graph.node(at: "prog"))]), graph).contains("gen.h"))
    }

    @Test func aCycleThroughADiscoveredInputIsNamedWhole() throws {
        let graph = try graph("build a: cat src\nbuild b: cat a\n")
        let a = try #require(graph.node(at: "a"))
        let b = try #require(graph.node(at: "b"))
        // From the target, as ninja walks: b, then a, whose discovered input is b.
        #expect(throws: BuildPlan.Failure(message: "dependency cycle: b -> a -> b")) {
            try BuildPlan(graph: graph, targets: [b]) { edge in graph.edges[Int(edge)].outputs == [a] ? [b] : [] }
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
