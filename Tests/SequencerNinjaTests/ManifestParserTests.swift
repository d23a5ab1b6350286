import Testing
@testable import SequencerNinja

/// Helpers the manifest, lexer, evaluation and dyndep tests share.
enum ManifestTesting {
    /// The options of ninja's own parser tests: duplicate outputs warn (ninja's command line
    /// makes them errors).
    static let ninjaTestOptions = ManifestParser.Options(duplicateOutputs: .warn)

    /// Reads `text` as the file `input`, with `files` for what it includes, and checks that the
    /// graph holds together (ninja's `VerifyGraph`).
    static func parse(
        _ text: String, files: [String: String] = [:], options: ManifestParser.Options = ninjaTestOptions,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> NinjaGraph {
        let graph = try ManifestParser.parse(text, files: InMemoryManifestFiles(files), options: options)
        for problem in problems(in: graph) { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
        return graph
    }

    /// What does not hold together in `graph`: every edge has an output; its outputs name it as
    /// their writer and its inputs as a reader; every edge a node names exists, and is named;
    /// counts fit the lists; the path index matches the nodes.
    static func problems(in graph: NinjaGraph) -> [String] {
        var problems: [String] = []
        let edgeCount = graph.edges.count
        var named = Set<Int>()
        for (index, node) in graph.nodes.enumerated() {
            if graph.node(at: node.path) != NinjaGraph.NodeID(index) { problems.append("node \(index) '\(node.path)' not indexed") }
            for edge in (node.inEdge.map { [$0] } ?? []) + node.outEdges + node.validationOutEdges {
                if edge < 0 || Int(edge) >= edgeCount { problems.append("node '\(node.path)' names missing edge \(edge)") }
                named.insert(Int(edge))
            }
        }
        if graph.pathIndex.count != graph.nodes.count { problems.append("index has \(graph.pathIndex.count) paths for \(graph.nodes.count) nodes") }
        for (index, edge) in graph.edges.enumerated() {
            let id = NinjaGraph.EdgeID(index)
            if edge.outputs.isEmpty { problems.append("edge \(index) has no output") }
            if !named.contains(index) { problems.append("edge \(index) is named by no node") }
            if edge.implicitOutputs < 0 || edge.implicitOutputs > edge.outputs.count { problems.append("edge \(index) implicit outputs") }
            if edge.implicitInputs < 0 || edge.orderOnlyInputs < 0 || edge.implicitInputs + edge.orderOnlyInputs > edge.inputs.count {
                problems.append("edge \(index) input counts")
            }
            for output in edge.outputs where graph.nodes[Int(output)].inEdge != id {
                problems.append("edge \(index) output '\(graph.nodes[Int(output)].path)' has another writer")
            }
            for input in edge.inputs where !graph.nodes[Int(input)].outEdges.contains(id) {
                problems.append("edge \(index) input '\(graph.nodes[Int(input)].path)' does not name it")
            }
            for validation in edge.validations where !graph.nodes[Int(validation)].validationOutEdges.contains(id) {
                problems.append("edge \(index) validation '\(graph.nodes[Int(validation)].path)' does not name it")
            }
            if let dyndep = edge.dyndep, !edge.inputs.contains(dyndep) { problems.append("edge \(index) dyndep is no input") }
            if Int(edge.scope) >= graph.scopes.count || Int(edge.ruleScope) >= graph.scopes.count { problems.append("edge \(index) scope") }
            if graph.scopes[Int(edge.ruleScope)].rules[edge.rule] == nil { problems.append("edge \(index) rule '\(edge.rule)' not found") }
            if graph.pools[edge.pool] == nil { problems.append("edge \(index) pool '\(edge.pool)' not found") }
        }
        for node in graph.defaults where Int(node) >= graph.nodes.count { problems.append("default \(node) missing") }
        return problems
    }

    /// The warnings reading `text` gives.
    static func warnings(_ text: String, files: [String: String] = [:], options: ManifestParser.Options = ninjaTestOptions) throws -> [String] {
        var warnings: [String] = []
        _ = try ManifestParser.parse(text, files: InMemoryManifestFiles(files), options: options) { warnings.append($0) }
        return warnings
    }

    /// The message reading `text` fails with, or nil when it reads.
    static func error(_ text: String, files: [String: String] = [:], options: ManifestParser.Options = ninjaTestOptions) -> String? {
        do {
            _ = try ManifestParser.parse(text, files: InMemoryManifestFiles(files), options: options)
            return nil
        } catch {
            return error.message
        }
    }

    /// ninja's test form of an unexpanded string: `[text][$variable]`.
    static func serialized(_ string: EvalString) -> String {
        string.pieces.map { piece in
            switch piece {
            case .text(let text): "[\(text)]"
            case .variable(let name): "[$\(name)]"
            }
        }.joined()
    }
}

extension NinjaGraph {
    /// The edge that writes `path`.
    func edge(writing path: String) -> Edge? {
        node(at: path).flatMap { nodes[Int($0)].inEdge }.map { edges[Int($0)] }
    }

    func edgeID(writing path: String) -> EdgeID? {
        node(at: path).flatMap { nodes[Int($0)].inEdge }
    }

    func paths(_ ids: some Sequence<NodeID>) -> [String] {
        ids.map { nodes[Int($0)].path }
    }

    /// A file-level variable as ninja's `LookupVariable` sees it from `scope`.
    func variable(_ name: String, scope: ScopeID = 0) -> String {
        NinjaGraph.scopeValue(name, from: scope, in: scopes) ?? ""
    }
}

/// The statements of ninja's manifest_parser_test.cc that read successfully, and what they read.
@Suite struct ManifestParserTests {
    typealias T = ManifestTesting

    @Test func emptyManifestHasNothingButThePhonyRule() throws {
        let graph = try T.parse("")
        #expect(graph.edges.isEmpty && graph.nodes.isEmpty)
        #expect(Array(graph.scopes[0].rules.keys) == ["phony"])
    }

    @Test func rulesKeepTheirVariablesUnexpanded() throws {
        let graph = try T.parse("""
            rule cat
              command = cat $in > $out

            rule date
              command = date > $out

            build result: cat in_1.cc in-2.O

            """)
        #expect(Set(graph.scopes[0].rules.keys) == ["cat", "date", "phony"])
        let command = try #require(graph.scopes[0].rules["cat"]?.bindings["command"])
        #expect(T.serialized(command) == "[cat ][$in][ > ][$out]")
    }

    @Test func everyReservedRuleVariableIsAccepted() throws {
        let graph = try T.parse("""
            rule cat
              command = a
              depfile = a
              deps = a
              description = a
              generator = a
              restat = a
              rspfile = a
              rspfile_content = a
              msvc_deps_prefix = a
              dyndep = a
              pool = console

            """)
        #expect(graph.scopes[0].rules["cat"]?.bindings.count == 11)
    }

    @Test func indentedCommentsAreIgnored() throws {
        let graph = try T.parse("""
              #indented comment
            rule cat
              command = cat $in > $out
              #generator = 1
              restat = 1 # comment
              #comment
            build result: cat in_1.cc in-2.O
              #comment

            """)
        let edge = try #require(graph.edgeID(writing: "result"))
        #expect(try graph.restat(of: edge))
        #expect(try !graph.generator(of: edge))
        #expect(try graph.evaluate("restat", of: edge) == "1 # comment")
    }

    @Test func indentedBlankLinesAreIgnored() throws {
        let graph = try T.parse("  \nrule cat\n  command = cat $in > $out\n  \nbuild result: cat in_1.cc in-2.O\n  \nvariable=1\n")
        #expect(graph.variable("variable") == "1")
        #expect(graph.edges.count == 1)
    }

    @Test func responseFileVariablesStayUnexpandedInTheRule() throws {
        let graph = try T.parse("""
            rule cat_rsp
              command = cat $rspfile > $out
              rspfile = $rspfile
              rspfile_content = $in

            build out: cat_rsp in
              rspfile=out.rsp

            """)
        let rule = try #require(graph.scopes[0].rules["cat_rsp"])
        #expect(rule.bindings["command"].map(T.serialized) == "[cat ][$rspfile][ > ][$out]")
        #expect(rule.bindings["rspfile"].map(T.serialized) == "[$rspfile]")
        #expect(rule.bindings["rspfile_content"].map(T.serialized) == "[$in]")
        #expect(try graph.command(of: 0) == "cat out.rsp > out")
    }

    @Test func inNewlineSeparatesInputsWithNewlines() throws {
        let graph = try T.parse("""
            rule cat_rsp
              command = cat $in_newline > $out

            build out: cat_rsp in in2
              rspfile=out.rsp

            """)
        #expect(try graph.command(of: 0) == "cat in\nin2 > out")
    }

    @Test func variablesExpandAsTheyAreRead() throws {
        let graph = try T.parse("""
            l = one-letter-test
            rule link
              command = ld $l $extra $with_under -o $out $in

            extra = -pthread
            with_under = -under
            build a: link b c
            nested1 = 1
            nested2 = $nested1/2
            build supernested: link x
              extra = $nested2/3

            """)
        #expect(graph.edges.count == 2)
        #expect(try graph.command(of: 0) == "ld one-letter-test -pthread -under -o a b c")
        #expect(graph.variable("nested2") == "1/2")
        #expect(try graph.command(of: 1) == "ld one-letter-test 1/2/3 -under -o supernested x")
    }

    @Test func edgeVariablesShadowFileVariables() throws {
        let graph = try T.parse("""
            foo = bar
            rule cmd
              command = cmd $foo $in $out

            build inner: cmd a
              foo = baz
            build outer: cmd b


            """)
        #expect(try graph.command(of: 0) == "cmd baz a inner")
        #expect(try graph.command(of: 1) == "cmd bar b outer")
    }

    @Test func lineContinuationsJoinLinesAndSkipIndentation() throws {
        let graph = try T.parse("rule link\n  command = foo bar $\n    baz\n\nbuild a: link c $\n d e f\n")
        #expect(graph.scopes[0].rules["link"]?.bindings["command"].map(T.serialized) == "[foo bar baz]")
        #expect(graph.paths(graph.edges[0].inputs) == ["c", "d", "e", "f"])
    }

    @Test func backslashesAreOrdinaryCharacters() throws {
        let graph = try T.parse("foo = bar\\baz\nfoo2 = bar\\ baz\n")
        #expect(graph.variable("foo") == "bar\\baz")
        #expect(graph.variable("foo2") == "bar\\ baz")
    }

    @Test func hashInsideAValueIsNotAComment() throws {
        let graph = try T.parse("# this is a comment\nfoo = not # a comment\n")
        #expect(graph.variable("foo") == "not # a comment")
    }

    @Test func dollarEscapes() throws {
        let graph = try T.parse("rule foo\n  command = ${out}bar$$baz$$$\nblah\nx = $$dollar\nbuild $x: foo y\n")
        #expect(graph.variable("x") == "$dollar")
        #expect(try graph.command(of: 0) == "'$dollar'bar$baz$blah")
    }

    @Test func escapedSpacesStayInPaths() throws {
        let graph = try T.parse("rule spaces\n  command = something\nbuild foo$ bar: spaces $$one two$$$ three\n")
        #expect(graph.node(at: "foo bar") != nil)
        #expect(graph.paths(graph.edges[0].outputs) == ["foo bar"])
        #expect(graph.paths(graph.edges[0].inputs) == ["$one", "two$ three"])
        #expect(try graph.command(of: 0) == "something")
    }

    @Test func pathsAreCanonicalised() throws {
        let graph = try T.parse("""
            rule cat
              command = cat $in > $out
            build out: cat in/1 in//2
            build in/1: cat
            build in/2: cat
            build ./out.o: cat ./bar/baz/../foo.cc

            """)
        for path in ["in/1", "in/2", "out.o", "bar/foo.cc"] { #expect(graph.node(at: path) != nil, "\(path)") }
        for path in ["in//1", "in//2", "./out.o", "./bar/baz/../foo.cc"] { #expect(graph.node(at: path) == nil, "\(path)") }
    }

    @Test func pathsExpandVariables() throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\ndir = out\nbuild $dir/exe: cat src\n")
        #expect(graph.node(at: "$dir/exe") == nil)
        #expect(graph.node(at: "out/exe") != nil)
    }

    @Test func pathsExpandTheStatementsOwnVariables() throws {
        let graph = try T.parse("rule cat\n  command = cat\nbuild $name.o: cat $name.c\n  name = main\n")
        #expect(graph.paths(graph.edges[0].outputs) == ["main.o"])
        #expect(graph.paths(graph.edges[0].inputs) == ["main.c"])
    }

    @Test func aSecondWriterOfAnOutputLosesIt() throws {
        let text = "rule cat\n  command = cat $in > $out\nbuild out1 out2: cat in1\nbuild out1: cat in2\nbuild final: cat out1\n"
        let graph = try T.parse(text)
        // The second statement has no output left, so it is dropped.
        #expect(graph.edges.count == 2)
        #expect(graph.edge(writing: "out1")?.inputs == graph.node(at: "in1").map { [$0] })
        // Dropped before its inputs were read: `in2` is not even a node.
        #expect(graph.node(at: "in2") == nil)
        let warnings = try T.warnings(text)
        #expect(warnings == ["multiple rules generate out1. builds involving this target will not be correct; continuing anyway"])
    }

    @Test func aRepeatedStatementIsDropped() throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\nbuild out: cat in\nbuild out: cat in\n")
        #expect(graph.edges.count == 1)
        #expect(graph.node(at: "in").map { graph.nodes[Int($0)].outEdges } == [0])
    }

    @Test func duplicateOutputsFailByDefaultAsOnNinjasCommandLine() {
        #expect(throws: ManifestError("input:5: multiple rules generate a\n")) {
            try ManifestParser.parse("rule r\n  command = r\nbuild a: r\nbuild a: r\n")
        }
        #expect(throws: ManifestError("input:4: multiple rules generate a\n")) {
            try ManifestParser.parse("rule r\n  command = r\nbuild a a: r\n")
        }
    }

    @Test func duplicateOutputsFailWhenAskedTo() {
        let text = "rule cat\n  command = cat $in > $out\nbuild out1 out2: cat in1\nbuild out1: cat in2\nbuild final: cat out1\n"
        #expect(T.error(text, options: .init(duplicateOutputs: .error)) == "input:5: multiple rules generate out1\n")
    }

    @Test func duplicateOutputsInASubninjaNameThatFile() {
        let sub = "rule cat\n  command = cat $in > $out\nbuild out1 out2: cat in1\nbuild out1: cat in2\nbuild final: cat out1\n"
        let message = T.error("subninja sub.ninja\n", files: ["sub.ninja": sub], options: .init(duplicateOutputs: .error))
        #expect(message == "sub.ninja:5: multiple rules generate out1\n")
    }

    @Test func phonySelfReferenceIsDroppedWithAWarning() throws {
        let graph = try T.parse("build a: phony a\n")
        #expect(graph.edge(writing: "a")?.inputs == [])
        // As in ninja, the node still lists the edge as a reader, so it is no root.
        #expect(graph.roots.isEmpty)
        #expect(try T.warnings("build a: phony a\n") == ["phony target 'a' names itself as an input; ignoring [-w phonycycle=warn]"])
    }

    @Test func phonySelfReferenceIsKeptWhenAskedTo() throws {
        let options = ManifestParser.Options(duplicateOutputs: .warn, phonyCycles: .error)
        let graph = try T.parse("build a: phony a\n", options: options)
        let a = try #require(graph.node(at: "a"))
        #expect(graph.edge(writing: "a")?.inputs == [a])
        #expect(try T.warnings("build a: phony a\n", options: options).isEmpty)
    }

    @Test func phonySelfReferenceAmongOrderOnlyInputsKeepsTheCount() throws {
        // ninja removes the path but keeps the order-only count: `b` becomes order-only.
        let graph = try T.parse("build a: phony b || a\n")
        let edge = try #require(graph.edge(writing: "a"))
        #expect(graph.paths(edge.inputs) == ["b"])
        #expect(edge.orderOnlyInputs == 1 && edge.explicitInputs.isEmpty)
        let alone = try T.parse("build a: phony || a\n")
        #expect(alone.edge(writing: "a")?.orderOnlyInputs == 0)
    }

    @Test func phonyWithImplicitInputsKeepsItsSelfReference() throws {
        let graph = try T.parse("build a: phony a | b\n")
        #expect(graph.edge(writing: "a").map { graph.paths($0.inputs) } == ["a", "b"])
    }

    @Test func keywordsAreOrdinaryNamesWhereNamesAreExpected() throws {
        let graph = try T.parse("rule build\n  command = rule run $out\nbuild subninja: build include default foo.cc\ndefault subninja\n")
        #expect(graph.paths(graph.defaults) == ["subninja"])
        #expect(try graph.command(of: 0) == "rule run subninja")
    }

    @Test func missingManifestFailsLikeNinja() {
        #expect(throws: ManifestError("loading 'build.ninja': No such file or directory")) {
            try ManifestParser.parse(file: "build.ninja", files: InMemoryManifestFiles())
        }
    }

    @Test func severalOutputsWithADepfileOrDeps() throws {
        let depfile = try T.parse("rule cc\n  command = foo\n  depfile = bar\nbuild a.o b.o: cc c.cc\n")
        #expect(depfile.edges[0].outputs.count == 2)
        let deps = try T.parse("rule cc\n  command = foo\n  deps = gcc\nbuild a.o b.o: cc c.cc\n")
        #expect(try deps.deps(of: 0) == "gcc")
    }

    @Test func implicitOrderOnlyAndValidationInputs() throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\nbuild foo: cat bar | baz || qux |@ check\n")
        let edge = try #require(graph.edge(writing: "foo"))
        #expect(graph.paths(edge.inputs) == ["bar", "baz", "qux"])
        #expect(edge.implicitInputs == 1 && edge.orderOnlyInputs == 1)
        #expect(graph.paths(edge.explicitInputs) == ["bar"])
        #expect(graph.paths(edge.orderOnly) == ["qux"])
        #expect(graph.paths(edge.validations) == ["check"])
        let check = try #require(graph.node(at: "check"))
        #expect(graph.nodes[Int(check)].validationOutEdges == [0])
        #expect(graph.nodes[Int(check)].outEdges.isEmpty)
    }

    @Test func implicitOutputs() throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\nbuild foo | imp: cat bar\n")
        let edge = try #require(graph.edge(writing: "imp"))
        #expect(edge.outputs.count == 2 && edge.implicitOutputs == 1)
        #expect(try graph.command(of: 0) == "cat bar > foo")
    }

    @Test func anEmptyImplicitOutputListIsAllowed() throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\nbuild foo | : cat bar\n")
        #expect(graph.edge(writing: "foo").map { ($0.outputs.count, $0.implicitOutputs) } ?? (0, 9) == (1, 0))
    }

    @Test func duplicateImplicitOutputsAreCountedOnce() throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\nbuild foo baz | foo baq foo: cat bar\n")
        let edge = try #require(graph.edge(writing: "foo"))
        #expect(graph.paths(edge.outputs) == ["foo", "baz", "baq"])
        #expect(edge.implicitOutputs == 1)
        let repeated = try T.parse("rule cat\n  command = cat $in > $out\nbuild foo foo foo | foo foo foo foo: cat bar\n")
        #expect(repeated.edge(writing: "foo").map { ($0.outputs.count, $0.implicitOutputs) } ?? (0, 9) == (1, 0))
    }

    @Test func onlyImplicitOutputs() throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\nbuild | imp : cat bar\n")
        #expect(graph.edge(writing: "imp")?.implicitOutputs == 1)
        #expect(try graph.command(of: 0) == "cat bar > ")
    }

    @Test func withoutDefaultsEveryUnreadOutputIsARoot() throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\nbuild a: cat foo\nbuild b: cat foo\nbuild c: cat foo\nbuild d: cat foo\n")
        #expect(graph.paths(graph.roots) == ["a", "b", "c", "d"])
        let cycle = try T.parse("rule cat\n  command = cat $in > $out\nbuild a: cat a\n")
        #expect(cycle.roots.isEmpty)
    }

    @Test func defaultStatementsCollectTargetsInOrder() throws {
        let graph = try T.parse("""
            rule cat
              command = cat $in > $out
            build a: cat foo
            build b: cat foo
            build c: cat foo
            build d: cat foo
            third = c
            default a b
            default $third
            default ./d/../a

            """)
        #expect(graph.paths(graph.defaults) == ["a", "b", "c", "a"])
    }

    @Test func utf8AndOtherBytesPassThrough() throws {
        let graph = try T.parse("rule utf8\n  command = true\n  description = compilaci\u{F3}\nbuild r\u{E9}sum\u{E9}: utf8\n")
        #expect(try graph.description(of: 0) == "compilaci\u{F3}")
        #expect(graph.node(at: "r\u{E9}sum\u{E9}") != nil)
    }

    @Test func crlfLineEnds() throws {
        _ = try T.parse("# comment with crlf\r\n")
        let graph = try T.parse("foo = foo\nbar = bar\r\n")
        #expect(graph.variable("bar") == "bar")
        let pools = try T.parse("pool link_pool\r\n  depth = 15\r\n\r\nrule xyz\r\n  command = something$expand \r\n  description = YAY!\r\n")
        #expect(pools.pools["link_pool"]?.depth == 15)
        #expect(pools.scopes[0].rules["xyz"]?.bindings["description"].map(T.serialized) == "[YAY!]")
    }

    @Test func noDyndepWithoutTheBinding() throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\nbuild result: cat in\n")
        #expect(graph.edge(writing: "result")?.dyndep == nil)
    }

    @Test(arguments: [
        ("build result: cat in\n  dyndep = in\n", "in"),
        ("build result: cat in | dd\n  dyndep = dd\n", "dd"),
        ("build result: cat in || dd\n  dyndep = dd\n", "dd"),
        ("build result: cat in || ./dd\n  dyndep = x/../dd\n", "dd"),
    ])
    func dyndepMustBeAnInput(statement: String, dyndep: String) throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\n" + statement)
        let node = try #require(graph.edge(writing: "result")?.dyndep)
        #expect(graph.nodes[Int(node)].path == dyndep)
        #expect(graph.nodes[Int(node)].dyndepPending)
    }

    @Test func dyndepFromTheRule() throws {
        let graph = try T.parse("rule cat\n  command = cat $in > $out\n  dyndep = $in\nbuild result: cat in\n")
        let node = try #require(graph.edge(writing: "result")?.dyndep)
        #expect(graph.nodes[Int(node)].path == "in")
    }

    @Test func edgesRememberTheirFileAndLine() throws {
        let graph = try T.parse(
            "rule r\n  command = r\n\nbuild a: r\ninclude more.ninja\nbuild b: r $\n  x\n\nbuild c: r\n",
            files: ["more.ninja": "# more\n\nbuild m: r\n"])
        #expect(graph.edges.map { "\($0.file):\($0.line)" } == ["input:4", "more.ninja:3", "input:6", "input:9"])
    }
}
