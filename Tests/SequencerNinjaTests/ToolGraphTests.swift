import Testing

@testable import SequencerNinja

/// `graph`: graphviz's dot language, with made-up addresses where ninja prints pointers.
struct ToolGraphTests {
    @Test func simpleEdgesAreArrowsAndOthersEllipses() throws {
        let manifest = """
            rule cc
              command = cc $in
            build a.o: cc a.c
            build b.o: cc b.c | h.h || gen
            build gen: phony
            build app: cc a.o b.o
            default app

            """
        let graph = try ManifestParser.parse(manifest)
        let result = try ToolTesting.run(["-t", "graph"], graph: graph)
        func node(_ path: String) -> String {
            GraphTool.address(ofNode: graph.node(at: path) ?? -1)
        }
        func edge(writing path: String) -> String {
            GraphTool.address(ofEdge: graph.node(at: path).flatMap { graph.nodes[Int($0)].inEdge } ?? -1)
        }
        let expected = """
            digraph ninja {
            rankdir="LR"
            node [fontsize=10, shape=box, height=0.25]
            edge [fontsize=10]
            "\(node("app"))" [label="app"]
            "\(edge(writing: "app"))" [label="cc", shape=ellipse]
            "\(edge(writing: "app"))" -> "\(node("app"))"
            "\(node("a.o"))" -> "\(edge(writing: "app"))" [arrowhead=none]
            "\(node("b.o"))" -> "\(edge(writing: "app"))" [arrowhead=none]
            "\(node("a.o"))" [label="a.o"]
            "\(node("a.c"))" -> "\(node("a.o"))" [label=" cc"]
            "\(node("a.c"))" [label="a.c"]
            "\(node("b.o"))" [label="b.o"]
            "\(edge(writing: "b.o"))" [label="cc", shape=ellipse]
            "\(edge(writing: "b.o"))" -> "\(node("b.o"))"
            "\(node("b.c"))" -> "\(edge(writing: "b.o"))" [arrowhead=none]
            "\(node("h.h"))" -> "\(edge(writing: "b.o"))" [arrowhead=none]
            "\(node("gen"))" -> "\(edge(writing: "b.o"))" [arrowhead=none style=dotted]
            "\(node("b.c"))" [label="b.c"]
            "\(node("h.h"))" [label="h.h"]
            "\(node("gen"))" [label="gen"]
            "\(edge(writing: "gen"))" [label="phony", shape=ellipse]
            "\(edge(writing: "gen"))" -> "\(node("gen"))"
            }

            """
        #expect(result == ToolRunResult(exitCode: 0, standardOutput: expected, standardError: ""))
    }

    @Test func addressesLookLikePointersAndNeverCollide() {
        #expect(GraphTool.address(ofNode: 0) == "0x560000000000")
        let nodes = Set((0..<1000).map { GraphTool.address(ofNode: $0) })
        let edges = Set((0..<1000).map { GraphTool.address(ofEdge: $0) })
        #expect(nodes.count == 1000 && edges.count == 1000 && nodes.isDisjoint(with: edges))
    }

    @Test func unknownTargetsAreErrors() throws {
        let result = try ToolTesting.run(["-t", "graph", "nope"], manifest: "build a: phony\n")
        #expect(result == ToolRunResult(exitCode: 1, standardOutput: "", standardError: "ninja: error: unknown target 'nope'\n"))
    }

    @Test func backslashesInLabelsBecomeSlashes() throws {
        let result = try ToolTesting.run(["-t", "graph", "a\\b"], manifest: "build a\\b: phony\n")
        #expect(result.standardOutput.contains("[label=\"a/b\"]"))
    }
}
