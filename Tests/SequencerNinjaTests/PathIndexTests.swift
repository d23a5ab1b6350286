import Testing

@testable import SequencerNinja

/// The graph's index of nodes by path (``PathIndex``), through `addNode` and `node(at:)`.
struct PathIndexTests {
    @Test func everyPathIsFoundAgainAfterTheTableGrows() {
        var graph = NinjaGraph()
        let paths = (0..<5_000).map { "obj/dir\($0 % 37)/file\($0).o" }
        let ids = paths.map { graph.addNode($0) }
        #expect(ids == (0..<5_000).map { NinjaGraph.NodeID($0) })
        #expect(paths.map { graph.node(at: $0) } == ids)
        #expect(paths.map { path in Array(path.utf8).withUnsafeBytes { graph.addNode(bytes: $0) } } == ids)
        #expect(graph.nodes.count == 5_000)
        #expect(graph.pathIndex.count == 5_000)
        #expect(graph.node(at: "obj/dir0/file5000.o") == nil)
        #expect(graph.node(at: "") == nil)
    }

    @Test func bytesThatAreNotUTF8NameTheNodeOfTheirRepairedPath() {
        var graph = NinjaGraph()
        let first = [UInt8]([0x61, 0xFF, 0x62]).withUnsafeBytes { graph.addNode(bytes: $0) }
        #expect(graph.nodes[Int(first)].path == "a\u{FFFD}b")
        #expect(graph.node(at: "a\u{FFFD}b") == first)
        #expect(graph.addNode("a\u{FFFD}b") == first)
        // Another byte that is not UTF-8 repairs to the same path, so to the same node.
        #expect([UInt8]([0x61, 0xFE, 0x62]).withUnsafeBytes { graph.addNode(bytes: $0) } == first)
        #expect(graph.nodes.count == 1)
        #expect(graph.pathIndex.count == 1)
    }
}
