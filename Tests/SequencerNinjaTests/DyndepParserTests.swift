import Testing
@testable import SequencerNinja

/// The dyndep file format, as ninja's dyndep_parser_test.cc checks it: each file is read
/// against a manifest with one edge writing `out` and `otherout`.
@Suite struct DyndepParserTests {
    static let manifest = "rule touch\n  command = touch $out\nbuild out otherout: touch\n"

    /// The graph, and what `text` says of its edges.
    static func parse(_ text: String, manifest: String = manifest) throws -> (NinjaGraph, DyndepFile) {
        var graph = try ManifestTesting.parse(manifest)
        var parser = DyndepParser(fileName: "input", contents: Array(text.utf8))
        let file = try parser.parse(into: &graph)
        return (graph, file)
    }

    static func error(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return (error as? ManifestError)?.message ?? "\(error)"
        }
    }

    @Test(arguments: [
        "ninja_dyndep_version = 1\n",
        "ninja_dyndep_version = 1-extra\n",
        "ninja_dyndep_version = 1.0\n",
        "ninja_dyndep_version = 1.0-extra\n",
        "# comment\nninja_dyndep_version = 1\n",
        "\nninja_dyndep_version = 1\n",
        "ninja_dyndep_version = 1\r\n",
        "# comment\r\nninja_dyndep_version = 1\r\n",
        "\r\nninja_dyndep_version = 1\r\n",
    ])
    func acceptedVersions(_ text: String) throws {
        let (_, file) = try Self.parse(text)
        #expect(file.entries.isEmpty)
    }

    @Test(arguments: [
        BrokenManifest(text: "", message: "input:1: expected 'ninja_dyndep_version = ...'\n"),
        BrokenManifest(text: "ninja_dyndep_version = 1.0", message: "input:1: unexpected EOF\nninja_dyndep_version = 1.0\n                          ^ near here"),
        BrokenManifest(text: "ninja_dyndep_version = 0\n", message: "input:1: unsupported 'ninja_dyndep_version = 0'\nninja_dyndep_version = 0\n                        ^ near here"),
        BrokenManifest(text: "ninja_dyndep_version = 1.1\n", message: "input:1: unsupported 'ninja_dyndep_version = 1.1'\nninja_dyndep_version = 1.1\n                          ^ near here"),
        BrokenManifest(text: "ninja_dyndep_version = 1\nninja_dyndep_version = 1\n", message: "input:2: unexpected identifier\n"),
        BrokenManifest(
            text: "not_ninja_dyndep_version = 1\n",
            message: "input:1: expected 'ninja_dyndep_version = ...'\nnot_ninja_dyndep_version = 1\n                            ^ near here"),
        BrokenManifest(text: "build out: dyndep\n", message: "input:1: expected 'ninja_dyndep_version = ...'\n"),
        BrokenManifest(text: "= 1\n", message: "input:1: unexpected '='\n"),
        BrokenManifest(text: " = 1\n", message: "input:1: unexpected indent\n"),
        BrokenManifest(
            text: "ninja_dyndep_version = 1\nbuild out: dyndep\nbuild out: dyndep\n",
            message: "input:3: multiple statements for 'out'\nbuild out: dyndep\n         ^ near here"),
        BrokenManifest(
            text: "ninja_dyndep_version = 1\nbuild out: dyndep\nbuild otherout: dyndep\n",
            message: "input:3: multiple statements for 'otherout'\nbuild otherout: dyndep\n              ^ near here"),
        BrokenManifest(text: "ninja_dyndep_version = 1\nbuild", message: "input:2: unexpected EOF\nbuild\n     ^ near here"),
        BrokenManifest(text: "ninja_dyndep_version = 1\nbuild :\n", message: "input:2: expected path\nbuild :\n      ^ near here"),
        BrokenManifest(
            text: "ninja_dyndep_version = 1\nbuild missing: dyndep\n",
            message: "input:2: no build statement exists for 'missing'\nbuild missing: dyndep\n             ^ near here"),
        BrokenManifest(text: "ninja_dyndep_version = 1\nbuild out", message: "input:2: unexpected EOF\nbuild out\n         ^ near here"),
        BrokenManifest(
            text: "ninja_dyndep_version = 1\nbuild out:", message: "input:2: expected build command name 'dyndep'\nbuild out:\n          ^ near here"),
        BrokenManifest(
            text: "ninja_dyndep_version = 1\nbuild out: touch",
            message: "input:2: expected build command name 'dyndep'\nbuild out: touch\n           ^ near here"),
        BrokenManifest(
            text: "ninja_dyndep_version = 1\nbuild out: dyndep", message: "input:2: unexpected EOF\nbuild out: dyndep\n                 ^ near here"),
        BrokenManifest(
            text: "ninja_dyndep_version = 1\nbuild out exp: dyndep\n",
            message: "input:2: explicit outputs not supported\nbuild out exp: dyndep\n             ^ near here"),
        BrokenManifest(
            text: "ninja_dyndep_version = 1\nbuild out: dyndep exp\n",
            message: "input:2: explicit inputs not supported\nbuild out: dyndep exp\n                     ^ near here"),
        BrokenManifest(
            text: "ninja_dyndep_version = 1\nbuild out: dyndep ||\n",
            message: "input:2: order-only inputs not supported\nbuild out: dyndep ||\n                  ^ near here"),
        BrokenManifest(
            text: "ninja_dyndep_version = 1\nbuild out: dyndep\n  not_restat = 1\n",
            message: "input:3: binding is not 'restat'\n  not_restat = 1\n                ^ near here"),
        BrokenManifest(text: "ninja_dyndep_version = 1\nbuild out: dyndep\n  restat = 1\n  restat = 1\n", message: "input:4: unexpected indent\n"),
        // Beyond ninja's tests.
        BrokenManifest(text: "ninja_dyndep_version = 1\nbuild $x: dyndep\n", message: "input:2: empty path\nbuild $x: dyndep\n        ^ near here"),
        BrokenManifest(text: "ninja_dyndep_version = 1\nbuild out: dyndep | $x\n", message: "input:3: empty path\n"),
        BrokenManifest(text: "ninja_dyndep_version = 1\nrule x\n", message: "input:2: unexpected 'rule'\n"),
        BrokenManifest(text: "\tninja_dyndep_version = 1\n", message: "input:1: tabs are not allowed, use spaces\n"),
    ])
    func failsWithNinjasMessage(_ broken: BrokenManifest) {
        #expect(Self.error(broken.text) == broken.message)
    }

    @Test func anEntryWithNothingNew() throws {
        for text in ["ninja_dyndep_version = 1\nbuild out: dyndep\n", "ninja_dyndep_version = 1\nbuild out | : dyndep |\n"] {
            let (_, file) = try Self.parse(text)
            #expect(file.entries.count == 1)
            #expect(file[0] == Dyndeps())
        }
    }

    @Test func implicitInputsAndOutputs() throws {
        let (graph, file) = try Self.parse("ninja_dyndep_version = 1\nbuild out | impout1 impout2: dyndep | impin1 ./impin2\n")
        let dyndeps = try #require(file[0])
        #expect(!dyndeps.restat)
        #expect(graph.paths(dyndeps.implicitOutputs) == ["impout1", "impout2"])
        #expect(graph.paths(dyndeps.implicitInputs) == ["impin1", "impin2"])
        for node in dyndeps.implicitInputs + dyndeps.implicitOutputs {
            #expect(graph.nodes[Int(node)].generatedByDepLoader)
        }
    }

    @Test func restat() throws {
        let (_, file) = try Self.parse("ninja_dyndep_version = 1\nbuild out: dyndep\n  restat = 1\n")
        #expect(file[0]?.restat == true)
    }

    @Test func anyOutputNamesTheEdge() throws {
        let (_, file) = try Self.parse("ninja_dyndep_version = 1\nbuild otherout: dyndep\n")
        #expect(file.entries.map(\.edge) == [0])
    }

    @Test func severalEdges() throws {
        let manifest = Self.manifest + "build out2: touch\n"
        let (graph, file) = try Self.parse("ninja_dyndep_version = 1\nbuild out: dyndep\nbuild out2: dyndep\n  restat = 1\n", manifest: manifest)
        #expect(graph.edges.count == 2)
        #expect(file[0] == Dyndeps())
        #expect(file[1] == Dyndeps(restat: true))
    }

    @Test func aLexingErrorInImplicitPathsEndsTheStatementAndParsingGoesOnAsInNinja() throws {
        let (_, file) = try Self.parse("ninja_dyndep_version = 1\nbuild out |")
        #expect(file[0] == Dyndeps())
        #expect(file.deferredError == ManifestError("input:2: unexpected EOF\nbuild out |\n           ^ near here"))
        // Parsing goes on from the bad path, which reads as an identifier.
        #expect(Self.error("ninja_dyndep_version = 1\nbuild out | a$") == "input:2: unexpected identifier\nbuild out | a$\n            ^ near here")
    }
}
