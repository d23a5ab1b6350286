import Testing

@testable import SequencerNinja

/// `compdb` (ninja 1.11) and `compdb-targets` (ninja 1.13).
struct ToolCompilationDatabaseTests {
    static let manifest = #"""
        rule cc
          command = cc "-DX=\"a\tb\"" -c $in -o $out
        rule link
          command = ld @$out.rsp -o $out
          rspfile = $out.rsp
          rspfile_content = $in
        build a.o: cc a.c
        build b.o: cc b$ c.c
        build app: link a.o b.o
        build all: phony app
        build none: cc

        """#

    static func object(command: String, file: String, output: String) -> String {
        "\n  {\n    \"directory\": \"/work/dir\",\n    \"command\": \"\(command)\",\n    \"file\": \"\(file)\",\n    \"output\": \"\(output)\"\n  }"
    }

    static let compileA = object(command: #"cc \"-DX=\\\"a\\tb\\\"\" -c a.c -o a.o"#, file: "a.c", output: "a.o")
    static let compileB = object(command: #"cc \"-DX=\\\"a\\tb\\\"\" -c 'b c.c' -o b.o"#, file: "b c.c", output: "b.o")
    static let link = object(command: "ld @app.rsp -o app", file: "a.o", output: "app")
    static let linkExpanded = object(command: "ld a.o b.o -o app", file: "a.o", output: "app")
    static let phony = object(command: "", file: "app", output: "all")

    private func run(_ arguments: [String], manifest: String = Self.manifest) throws -> ToolRunResult {
        let graph = try ManifestParser.parse(manifest)
        return try ToolTesting.run(arguments, graph: graph, directory: "/work/dir")
    }

    @Test func everyEdgeWithInputsPhonyOnesToo() throws {
        let result = try run(["-t", "compdb"])
        let expected = "[" + [Self.compileA, Self.compileB, Self.link, Self.phony].joined(separator: ",") + "\n]\n"
        #expect(result == ToolRunResult(exitCode: 0, standardOutput: expected, standardError: ""))
    }

    @Test func rulesFilterAndRepeatAndExpandResponseFiles() throws {
        let result = try run(["-t", "compdb", "-x", "link", "cc", "link"])
        let expected = "[" + [Self.compileA, Self.compileB, Self.linkExpanded, Self.linkExpanded].joined(separator: ",") + "\n]\n"
        #expect(result.standardOutput == expected)
        #expect(try run(["-t", "compdb", "nothing"]).standardOutput == "[\n]\n")
    }

    @Test func usage() throws {
        let usage = "usage: ninja -t compdb [options] [rules]\n\noptions:\n  -x     expand @rspfile style response file invocations\n"
        #expect(try run(["-t", "compdb", "-h"]) == ToolRunResult(exitCode: 1, standardOutput: usage, standardError: ""))
        #expect(try run(["-t", "compdb", "-y"]).standardError == "compdb: invalid option -- 'y'\n")
    }

    @Test func jsonEscapesControlBytesQuotesAndBackslashesOnly() {
        #expect(JSONText.escaped("plain é") == "plain é")
        #expect(JSONText.escaped("a\"b\\c\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f}") == #"a\"b\\c\n\t\r\b\f\u0001\u001f"# + "\u{7f}")
    }

    @Test func responseFileExpansionNeedsAnAtSignBeforeTheFirstMention() throws {
        let manifest = """
            rule link
              command = ld $out.rsp @$out.rsp
              rspfile = $out.rsp
              rspfile_content = $in_newline
            rule flag
              command = tool -f $out.rsp
              rspfile = $out.rsp
              rspfile_content = $in
            build app: link a b
            build lib: flag c d

            """
        let graph = try ManifestParser.parse(manifest)
        #expect(try ResponseFileExpansion.ninja111.command(of: 0, graph) == "ld app.rsp @app.rsp")
        #expect(try ResponseFileExpansion.ninja111.command(of: 1, graph) == "tool -f lib.rsp")
        #expect(try ResponseFileExpansion.ninja113.command(of: 1, graph) == "tool c d")
        let atSign = try ManifestParser.parse(
            "rule r\n  command = x @$out.rsp\n  rspfile = $out.rsp\n  rspfile_content = $in_newline\nbuild o: r a b\n")
        #expect(try ResponseFileExpansion.ninja111.command(of: 0, atSign) == "x a b")
    }

    @Test func compdbTargetsListsTheEdgesUnderTheTargetsInputsFirst() throws {
        let result = try run(["-t", "compdb-targets", "all"])
        let expected = "[" + [Self.compileA, Self.compileB, Self.link].joined(separator: ",") + "\n]\n"
        #expect(result == ToolRunResult(exitCode: 0, standardOutput: expected, standardError: ""))
        let expanded = try run(["-t", "compdb-targets", "-x", "app", "b.o"])
        #expect(expanded.standardOutput == "[" + [Self.compileA, Self.compileB, Self.linkExpanded].joined(separator: ",") + "\n]\n")
    }

    @Test func compdbTargetsErrors() throws {
        let usage =
            "usage: ninja -t compdb [-hx] target [targets]\n\noptions:\n  -h     display this help message\n  -x     expand @rspfile style response file invocations\n"
        #expect(
            try run(["-t", "compdb-targets"])
                == ToolRunResult(
                    exitCode: 1, standardOutput: usage,
                    standardError: "ninja: error: compdb-targets expects the name of at least one target\n"))
        #expect(
            try run(["-t", "compdb-targets", "nope"])
                == ToolRunResult(
                    exitCode: 1, standardOutput: "", standardError: "ninja: fatal: unknown target 'nope', did you mean 'none'?\n"))
        #expect(
            try run(["-t", "compdb-targets", "a.c"])
                == ToolRunResult(
                    exitCode: 1, standardOutput: "",
                    standardError: "ninja: fatal: 'a.c' is not a target (i.e. it is not an output of any `build` statement)\n"))
    }
}
