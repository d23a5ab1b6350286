import Testing
@testable import SequencerNinja

/// `include`, `subninja`, pools, and the scopes of variables and rules.
@Suite struct ManifestScopeTests {
    typealias T = ManifestTesting

    /// Files that record what the parser asked for.
    final class RecordingFiles: ManifestFiles {
        let files: InMemoryManifestFiles
        var read: [String] = []

        init(_ files: [String: String]) { self.files = InMemoryManifestFiles(files) }

        func read(_ path: String) throws(ManifestFileError) -> [UInt8] {
            read.append(path)
            return try files.read(path)
        }
    }

    @Test func subninjaSeesTheParentScopeWithoutChangingIt() throws {
        let files = RecordingFiles(["test.ninja": "var = inner\nbuild $builddir/inner: varref\n"])
        let graph = try ManifestParser.parse(
            """
            builddir = some_dir/
            rule varref
              command = varref $var
            var = outer
            build $builddir/outer: varref
            subninja test.ninja
            build $builddir/outer2: varref

            """, files: files)
        #expect(files.read == ["test.ninja"])
        #expect(graph.node(at: "some_dir/outer") != nil)
        #expect(graph.node(at: "some_dir/inner") != nil)
        #expect(try (0..<3).map { try graph.command(of: $0) } == ["varref outer", "varref inner", "varref outer"])
        #expect(graph.scopes.count == 2 && graph.scopes[1].parent == 0)
        #expect(graph.edges[1].scope == 1)
        #expect(graph.variable("var") == "outer" && graph.variable("var", scope: 1) == "inner")
        #expect(graph.variable("builddir") == "some_dir/")
    }

    @Test func includeReadsIntoTheSameScope() throws {
        let files = RecordingFiles(["include.ninja": "var = inner\n"])
        let graph = try ManifestParser.parse("var = outer\ninclude include.ninja\n", files: files)
        #expect(files.read == ["include.ninja"])
        #expect(graph.variable("var") == "inner")
        #expect(graph.scopes.count == 1)
    }

    @Test func includedPathsAreRelativeToTheBuildDirectoryNotTheIncludingFile() throws {
        let files = RecordingFiles(["sub/a.ninja": "include sub/b.ninja\n", "sub/b.ninja": "x = b\n"])
        let graph = try ManifestParser.parse("include sub/a.ninja\n", files: files)
        #expect(files.read == ["sub/a.ninja", "sub/b.ninja"])
        #expect(graph.variable("x") == "b")
        // Not canonicalised either: the path is read as written.
        let dotted = RecordingFiles(["./a.ninja": "x = 1\n"])
        _ = try ManifestParser.parse("dir = .\ninclude $dir/a.ninja\n", files: dotted)
        #expect(dotted.read == ["./a.ninja"])
    }

    @Test func rulesAreScopedToSubninjas() throws {
        let rules = "rule cat\n  command = cat\n"
        _ = try T.parse("rule cat\n  command = cat\nsubninja test.ninja\n", files: ["test.ninja": rules])
        _ = try T.parse(
            "include rules.ninja\nsubninja test.ninja\nbuild y : cat\n",
            files: ["rules.ninja": rules, "test.ninja": "include rules.ninja\nbuild x : cat\n"])
        #expect(T.error("subninja a.ninja\nbuild x: only_in_a\n", files: ["a.ninja": "rule only_in_a\n  command = a\n"]) != nil)
    }

    @Test func anEdgeKeepsTheRuleItFoundEvenIfACloserScopeDeclaresOneLater() throws {
        let graph = try T.parse(
            "rule r\n  command = top\nsubninja a.ninja\n",
            files: ["a.ninja": "subninja b.ninja\nrule r\n  command = middle\nbuild m: r\n", "b.ninja": "build x: r\n"])
        let x = try #require(graph.edgeID(writing: "x"))
        let m = try #require(graph.edgeID(writing: "m"))
        #expect(try graph.command(of: x) == "top")
        #expect(try graph.command(of: m) == "middle")
    }

    @Test func aSubninjaMayDeclareItsOwnPhonyRule() throws {
        let graph = try T.parse("subninja a.ninja\n", files: ["a.ninja": "rule phony\n  command = not really\nbuild x: phony y\n"])
        let edge = try #require(graph.edge(writing: "x"))
        #expect(!edge.isPhony)
        #expect(try graph.command(of: 0) == "not really")
    }

    @Test func topLevelVariablesAreExpandedWhenRead() throws {
        let graph = try T.parse("a = 1\nb = $a\na = 2\nc = $a$b\n")
        #expect(graph.variable("b") == "1" && graph.variable("c") == "21")
    }

    @Test func edgeVariablesExpandInTheEnclosingScopeNotInEachOther() throws {
        let graph = try T.parse("x = file\nrule r\n  command = $y\nbuild o: r\n  x = edge\n  y = $x\n")
        #expect(try graph.command(of: 0) == "file")
    }

    @Test func pools() throws {
        let graph = try T.parse("""
            pool link
              depth = 3
            pool unlimited
              depth = 0
            pool spaced
              depth = $n
            n = 2
            pool later
              depth = $n
            rule r
              command = r
              pool = link
            build a: r
            build b: r
              pool = console
            build c: r
              pool =
            build d: phony
              pool = unlimited

            """)
        #expect(graph.pools["link"] == NinjaGraph.Pool(name: "link", depth: 3))
        #expect(graph.pools["unlimited"]?.depth == 0)
        #expect(graph.pools["spaced"]?.depth == 0)
        #expect(graph.pools["later"]?.depth == 2)
        #expect(graph.edges.map(\.pool) == ["link", "console", "", "unlimited"])
    }

    @Test func poolDepthIsReadLikeAtol() throws {
        let graph = try T.parse("pool a\n  depth = 12abc\npool b\n  depth =   +7\npool c\n  depth = x\npool d\n  depth = 1\n  depth = 5\n")
        #expect(["a", "b", "c", "d"].map { graph.pools[$0]?.depth } == [12, 7, 0, 5])
    }

    @Test func thePoolIsLookedUpBeforeTheEdgeHasPaths() throws {
        // `$out` is empty when ninja evaluates `pool`, so this edge has no pool.
        let graph = try T.parse("pool out\n  depth = 1\nrule r\n  command = r\n  pool = $out\nbuild out: r\n")
        #expect(graph.edges[0].pool == "")
        #expect(try graph.pool(of: 0) == "out")
    }

    @Test func aStatementWithoutVariablesSeesFileVariablesBeforeItsRules() throws {
        let graph = try T.parse("command = foo\nrule r\n  command = bar\nbuild x: r\nbuild y: r\n  z = 1\n")
        #expect(try graph.command(of: 0) == "foo")
        #expect(try graph.command(of: 1) == "bar")
    }

    @Test func emptyRuleVariablesHideFileVariables() throws {
        // ninja's rules always have `command`, `rspfile` and `rspfile_content`, even empty.
        let graph = try T.parse("rspfile = from-file\ndepfile = from-file\nrule r\n  command = r\nbuild x: r\n  v = 1\n")
        #expect(try graph.rspfile(of: 0) == "")
        #expect(try graph.depfile(of: 0) == "from-file")
        #expect(graph.scopes[0].rules["r"]?.bindings.keys.sorted() == ["command", "rspfile", "rspfile_content"])
    }

    @Test func ninjaRequiredVersionIsCheckedInEveryFile() {
        let message = T.error("subninja a.ninja\n", files: ["a.ninja": "ninja_required_version = 99\n"])
        #expect(message == "ninja version (1.11.1) incompatible with build file ninja_required_version version (99).")
    }

    @Test func aLongChainOfVariablesDoesNotRecurse() throws {
        var text = "v0 = x\n"
        for index in 1...20_000 { text += "v\(index) = $v\(index - 1)\n" }
        let graph = try T.parse(text)
        #expect(graph.variable("v20000") == "x")
    }

    @Test func deeplyNestedSubninjasStackScopes() throws {
        var files: [String: String] = [:]
        for level in 1...50 { files["\(level).ninja"] = "v = $v.\(level)\nsubninja \(level + 1).ninja\n" }
        files["51.ninja"] = "rule r\n  command = $v\nbuild out: r\n"
        let graph = try T.parse("v = 0\nsubninja 1.ninja\n", files: files)
        #expect(graph.scopes.count == 52)
        #expect(try graph.command(of: 0) == "0" + (1...50).map { ".\($0)" }.joined())
    }
}
