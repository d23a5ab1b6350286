import Testing
@testable import SequencerNinja

/// Loading a dyndep file onto the graph, as ninja's graph_test.cc checks `DyndepLoader`.
@Suite struct DyndepLoaderTests {
    /// The manifest `text`, then the dyndep file `dd` (named by its node) loaded onto it.
    static func load(_ text: String, dyndep: String = "dd", files: [String: String]) throws -> (NinjaGraph, DyndepUpdate) {
        var graph = try ManifestTesting.parse(text)
        let node = try #require(graph.node(at: dyndep))
        let update = try graph.load(dyndep: node, files: InMemoryManifestFiles(files))
        return (graph, update)
    }

    static func error(_ text: String, dyndep: String = "dd", files: [String: String]) throws -> String? {
        var graph = try ManifestTesting.parse(text)
        let node = try #require(graph.node(at: dyndep))
        do {
            _ = try graph.load(dyndep: node, files: InMemoryManifestFiles(files))
            return nil
        } catch {
            #expect(!graph.nodes[Int(node)].dyndepPending)
            return error.message
        }
    }

    static let oneEdge = "rule r\n  command = unused\nbuild out: r in || dd\n  dyndep = dd\n"

    @Test func anEntryWithNothingNewChangesNothing() throws {
        var graph = try ManifestTesting.parse(Self.oneEdge)
        let dd = try #require(graph.node(at: "dd"))
        #expect(graph.nodes[Int(dd)].dyndepPending)
        let update = try graph.load(dyndep: dd, files: InMemoryManifestFiles(["dd": "ninja_dyndep_version = 1\nbuild out: dyndep\n"]))
        #expect(!graph.nodes[Int(dd)].dyndepPending)
        let edge = try #require(graph.edge(writing: "out"))
        #expect(graph.paths(edge.outputs) == ["out"])
        #expect(graph.paths(edge.inputs) == ["in", "dd"])
        #expect(edge.implicitInputs == 0 && edge.orderOnlyInputs == 1)
        #expect(try !graph.restat(of: 0))
        #expect(update == DyndepUpdate(edges: [.init(edge: 0, newInputs: [], newOutputs: [], restat: false)]))
    }

    @Test func implicitInputsGoBeforeTheOrderOnlyOnes() throws {
        let (graph, update) = try Self.load(
            "rule r\n  command = unused\nbuild out1: r in || dd\n  dyndep = dd\nbuild out2: r in\n",
            files: ["dd": "ninja_dyndep_version = 1\nbuild out1: dyndep | out2\n"])
        let edge = try #require(graph.edge(writing: "out1"))
        #expect(graph.paths(edge.outputs) == ["out1"])
        #expect(graph.paths(edge.inputs) == ["in", "out2", "dd"])
        #expect(edge.implicitInputs == 1 && edge.orderOnlyInputs == 1)
        let out2 = try #require(graph.node(at: "out2"))
        #expect(update.edges.first?.newInputs == [out2])
        #expect(graph.nodes[Int(out2)].outEdges == [0])
        #expect(!graph.nodes[Int(out2)].generatedByDepLoader)
    }

    @Test func aMissingFile() throws {
        #expect(try Self.error(Self.oneEdge, files: [:]) == "loading 'dd': No such file or directory")
    }

    @Test func everyBoundEdgeMustBeMentioned() throws {
        #expect(try Self.error(Self.oneEdge, files: ["dd": "ninja_dyndep_version = 1\n"]) == "'out' not mentioned in its dyndep file 'dd'")
    }

    @Test func everyMentionedEdgeMustBeBound() throws {
        let text = "rule r\n  command = unused\nbuild out: r in || dd\n  dyndep = dd\nbuild out2: r in || dd\n"
        let message = try Self.error(text, files: ["dd": "ninja_dyndep_version = 1\nbuild out: dyndep\nbuild out2: dyndep\n"])
        #expect(message == "dyndep file 'dd' mentions output 'out2' whose build statement does not have a dyndep binding for the file")
    }

    @Test func aNewOutputThatAnotherEdgeWrites() throws {
        let text = "rule r\n  command = unused\nbuild out1 | out-twice.imp: r in1\nbuild out2: r in2 || dd\n  dyndep = dd\n"
        let message = try Self.error(text, files: ["dd": "ninja_dyndep_version = 1\nbuild out2 | out-twice.imp: dyndep\n"])
        #expect(message == "multiple rules generate out-twice.imp")
    }

    @Test func aNewOutputThatAnotherDyndepFileGaveFirst() throws {
        var graph = try ManifestTesting.parse(
            "rule r\n  command = unused\nbuild out1: r in1 || dd1\n  dyndep = dd1\nbuild out2: r in2 || dd2\n  dyndep = dd2\n")
        let files = InMemoryManifestFiles([
            "dd1": "ninja_dyndep_version = 1\nbuild out1 | out-twice.imp: dyndep\n",
            "dd2": "ninja_dyndep_version = 1\nbuild out2 | out-twice.imp: dyndep\n",
        ])
        let dd1 = try #require(graph.node(at: "dd1"))
        let dd2 = try #require(graph.node(at: "dd2"))
        _ = try graph.load(dyndep: dd1, files: files)
        #expect(throws: ManifestError("multiple rules generate out-twice.imp")) { try graph.load(dyndep: dd2, files: files) }
    }

    @Test func anOutputWhoseEdgeADepfileMadeChangesHands() throws {
        var graph = try ManifestTesting.parse(Self.oneEdge)
        // What a depfile loader does for a node it discovers: a phony edge of its own.
        let discovered = graph.addNode("gen.h")
        var phony = NinjaGraph.Edge(rule: "phony", scope: 0)
        phony.generatedByDepLoader = true
        phony.outputs = [discovered]
        graph.nodes[Int(discovered)].inEdge = NinjaGraph.EdgeID(graph.edges.count)
        graph.edges.append(phony)
        let dd = try #require(graph.node(at: "dd"))
        _ = try graph.load(dyndep: dd, files: InMemoryManifestFiles(["dd": "ninja_dyndep_version = 1\nbuild out | gen.h: dyndep\n"]))
        #expect(graph.nodes[Int(discovered)].inEdge == 0)
        #expect(graph.edges[1].outputs.isEmpty)
    }

    @Test func severalEdgesOneFile() throws {
        let (graph, update) = try Self.load(
            """
            rule r
              command = unused
            build out1: r in1 || dd
              dyndep = dd
            build out2: r in2 || dd
              dyndep = dd
            build outNot: r in3 || dd

            """,
            files: ["dd": "ninja_dyndep_version = 1\nbuild out1 | out1imp: dyndep | in1imp\nbuild out2: dyndep | in2imp\n  restat = 1\n"])
        let edge1 = try #require(graph.edge(writing: "out1"))
        #expect(graph.paths(edge1.outputs) == ["out1", "out1imp"] && edge1.implicitOutputs == 1)
        #expect(graph.paths(edge1.inputs) == ["in1", "in1imp", "dd"] && edge1.implicitInputs == 1 && edge1.orderOnlyInputs == 1)
        #expect(try !graph.restat(of: 0))
        #expect(graph.edgeID(writing: "out1imp") == 0)
        let in1imp = try #require(graph.node(at: "in1imp"))
        #expect(graph.nodes[Int(in1imp)].outEdges == [0])
        #expect(graph.nodes[Int(in1imp)].generatedByDepLoader)

        let edge2 = try #require(graph.edge(writing: "out2"))
        #expect(graph.paths(edge2.outputs) == ["out2"] && edge2.implicitOutputs == 0)
        #expect(graph.paths(edge2.inputs) == ["in2", "in2imp", "dd"] && edge2.implicitInputs == 1)
        #expect(try graph.restat(of: 1))
        #expect(try !graph.restat(of: 2))

        #expect(update.edges.map(\.edge) == [0, 1])
        #expect(update.edges.map(\.restat) == [false, true])
        #expect(update.edges.map { graph.paths($0.newOutputs) } == [["out1imp"], []])
        #expect(update.edges.map { graph.paths($0.newInputs) } == [["in1imp"], ["in2imp"]])
    }

    @Test func restatForAnEdgeWithoutVariablesLandsInItsFileScopeAsInNinja() throws {
        let (graph, _) = try Self.load(
            "rule r\n  command = unused\n  dyndep = dd\nbuild out: r in dd\nbuild other: r in dd\n",
            files: ["dd": "ninja_dyndep_version = 1\nbuild out: dyndep\n  restat = 1\nbuild other: dyndep\n"])
        #expect(graph.variable("restat") == "1")
        #expect(try graph.restat(of: 1))
    }

    @Test func theFilesSyntaxErrorsNameIt() throws {
        #expect(
            try Self.error(Self.oneEdge, files: ["dd": "ninja_dyndep_version = 1\nbuild out: dyndep | $x\n"]) == "dd:3: empty path\n")
        #expect(
            try Self.error(Self.oneEdge, files: ["dd": "ninja_dyndep_version = 1\nbuild out |"])
                == "dd:2: unexpected EOF\nbuild out |\n           ^ near here")
    }

    @Test func aDeferredErrorIsReportedAfterTheLoadersOwn() throws {
        let text = "rule r\n  command = unused\nbuild out: r in || dd\n  dyndep = dd\nbuild out2: r in\n"
        let message = try Self.error(text, files: ["dd": "ninja_dyndep_version = 1\nbuild out: dyndep\nbuild out2 |"])
        #expect(message == "dyndep file 'dd' mentions output 'out2' whose build statement does not have a dyndep binding for the file")
    }
}
