import Testing
@testable import SequencerNinja

/// A manifest that fails, and ninja's message for it.
struct BrokenManifest: Sendable, CustomTestStringConvertible {
    var text: String
    var message: String
    var files: [String: String] = [:]

    var testDescription: String { text.debugDescription }
}

/// ninja's parse errors, with their context lines, as manifest_parser_test.cc checks them, and
/// the ones it does not check.
@Suite struct ManifestErrorTests {
    static let cases: [BrokenManifest] = [
        .init(text: "subn", message: "input:1: expected '=', got eof\nsubn\n    ^ near here"),
        .init(text: "foobar", message: "input:1: expected '=', got eof\nfoobar\n      ^ near here"),
        .init(text: "x 3", message: "input:1: expected '=', got identifier\nx 3\n  ^ near here"),
        .init(text: "x = 3", message: "input:1: unexpected EOF\nx = 3\n     ^ near here"),
        .init(text: "x = 3\ny 2", message: "input:2: expected '=', got identifier\ny 2\n  ^ near here"),
        .init(text: "x = $", message: "input:1: bad $-escape (literal $ must be written as $$)\nx = $\n    ^ near here"),
        .init(text: "x = $\n $[\n", message: "input:2: bad $-escape (literal $ must be written as $$)\n $[\n ^ near here"),
        .init(text: "x = a$\n b$\n $\n", message: "input:4: unexpected EOF\n"),
        .init(text: "build\n", message: "input:1: expected path\nbuild\n     ^ near here"),
        .init(text: "build x: y z\n", message: "input:1: unknown build rule 'y'\nbuild x: y z\n         ^ near here"),
        .init(text: "build x:: y z\n", message: "input:1: expected build command name\nbuild x:: y z\n        ^ near here"),
        .init(
            text: "rule cat\n  command = cat ok\nbuild x: cat $\n :\n",
            message: "input:4: expected newline, got ':'\n :\n ^ near here"),
        .init(text: "rule cat\n", message: "input:2: expected 'command =' line\n"),
        .init(
            text: "rule cat\n  command = echo\nrule cat\n  command = echo\n",
            message: "input:3: duplicate rule 'cat'\nrule cat\n        ^ near here"),
        .init(
            text: "rule cat\n  command = echo\n  rspfile = cat.rsp\n",
            message: "input:4: rspfile and rspfile_content need to be both specified\n"),
        .init(
            text: "rule cat\n  command = ${fafsd\nfoo = bar\n",
            message: "input:2: bad $-escape (literal $ must be written as $$)\n  command = ${fafsd\n            ^ near here"),
        .init(
            text: "rule cat\n  command = cat\nbuild $.: cat foo\n",
            message: "input:3: bad $-escape (literal $ must be written as $$)\nbuild $.: cat foo\n      ^ near here"),
        .init(
            text: "rule cat\n  command = cat\nbuild $: cat foo\n",
            message: "input:3: expected ':', got newline ($ also escapes ':')\nbuild $: cat foo\n                ^ near here"),
        .init(text: "rule %foo\n", message: "input:1: expected rule name\nrule %foo\n     ^ near here"),
        .init(
            text: "rule cc\n  command = foo\n  othervar = bar\n",
            message: "input:3: unexpected variable 'othervar'\n  othervar = bar\n                ^ near here"),
        .init(
            text: "rule cc\n  command = foo\n  && bar",
            message: "input:3: expected variable name\n  && bar\n  ^ near here"),
        .init(text: "default\n", message: "input:1: expected target name\ndefault\n       ^ near here"),
        .init(
            text: "default nonexistent\n",
            message: "input:1: unknown target 'nonexistent'\ndefault nonexistent\n                   ^ near here"),
        .init(
            text: "rule r\n  command = r\nbuild b: r\ndefault b:\n",
            message: "input:4: expected newline, got ':'\ndefault b:\n         ^ near here"),
        .init(text: "default $a\n", message: "input:1: empty path\ndefault $a\n          ^ near here"),
        // The line is the one after the statement: ninja expands paths after reading them all.
        .init(text: "rule r\n  command = r\nbuild $a: r $c\n", message: "input:4: empty path\n"),
        .init(text: "rule r\n  command = r\n  \n  generator = 1\n", message: "input:4: unexpected indent\n"),
        .init(text: "pool\n", message: "input:1: expected pool name\npool\n    ^ near here"),
        .init(text: "pool foo\n", message: "input:2: expected 'depth =' line\n"),
        .init(
            text: "pool foo\n  depth = 4\npool foo\n",
            message: "input:3: duplicate pool 'foo'\npool foo\n        ^ near here"),
        .init(text: "pool foo\n  depth = -1\n", message: "input:2: invalid pool depth\n  depth = -1\n            ^ near here"),
        .init(text: "pool foo\n  bar = 1\n", message: "input:2: unexpected variable 'bar'\n  bar = 1\n         ^ near here"),
        .init(
            text: "rule run\n  command = echo\n  pool = unnamed_pool\nbuild out: run in\n",
            message: "input:5: unknown pool name 'unnamed_pool'\n"),
        .init(
            text: "subninja foo.ninja\n",
            message: "input:1: loading 'foo.ninja': No such file or directory\nsubninja foo.ninja\n                  ^ near here"),
        .init(text: "include include.ninja\n", message: "include.ninja:1: expected path\nbuild\n     ^ near here", files: ["include.ninja": "build\n"]),
        .init(
            text: "rule touch\n  command = touch $out\nbuild result: touch\n  dyndep = notin\n",
            message: "input:5: dyndep 'notin' is not an input\n"),
        // Beyond ninja's tests; the messages are what ninja 1.11.1 prints for them.
        .init(text: "\tx = 1\n", message: "input:1: tabs are not allowed, use spaces\n"),
        .init(text: "x = 1\n  \ty = 2\n", message: "input:2: unexpected indent\n"),
        .init(text: "# no newline at the end", message: "input:1: lexing error\n"),
        .init(text: "x = 1\n  # indented, no newline", message: "input:2: unexpected indent\n"),
        .init(text: "rule r\n  command = r\n  # indented, no newline", message: "input:3: expected variable name\n  # indented, no newline\n  ^ near here"),
        .init(text: "x = a\rb\n", message: "input:1: lexing error\nx = a\rb\n     ^ near here"),
        .init(text: "rule r\n  command = r\n|\n", message: "input:3: unexpected '|'\n"),
        .init(text: "=\n", message: "input:1: unexpected '='\n"),
        .init(text: ":\n", message: "input:1: unexpected ':'\n"),
        .init(text: "  x = 1\n", message: "input:1: unexpected indent\n"),
        .init(text: "rule r\n  command = r\nbuild a: r\n  x\n", message: "input:4: expected '=', got newline\n  x\n   ^ near here"),
        .init(text: "rule r\n  command =\n", message: "input:3: expected 'command =' line\n"),
        .init(
            text: "rule r\n  command = r\n  rspfile_content = $in\n",
            message: "input:4: rspfile and rspfile_content need to be both specified\n"),
        .init(text: "rule phony\n  command = r\n", message: "input:1: duplicate rule 'phony'\nrule phony\n          ^ near here"),
        .init(text: "pool console\n  depth = 2\n", message: "input:1: duplicate pool 'console'\npool console\n            ^ near here"),
        // atol gives 4294967295, and the int ninja keeps is -1.
        .init(text: "pool p\n  depth = 4294967295\n", message: "input:2: invalid pool depth\n  depth = 4294967295\n                    ^ near here"),
        .init(text: "rule r\n  command = r\n  pool = $p\nbuild c: r\n  p = bad\n", message: "input:6: unknown pool name 'bad'\n"),
        .init(text: "rule r\n  command = r\nbuild a | : r\nbuild : r\n", message: "input:4: expected path\nbuild : r\n      ^ near here"),
        .init(text: "rule r\n  command = r\nbuild a: r\ndefault a b\n", message: "input:4: unknown target 'b'\ndefault a b\n           ^ near here"),
        .init(text: "include\n", message: "input:1: loading '': No such file or directory\ninclude\n       ^ near here"),
        .init(
            text: "include a.ninja b\n", message: "input:1: expected newline, got identifier\ninclude a.ninja b\n                ^ near here",
            files: ["a.ninja": ""]),
        .init(text: "include a.ninja\n", message: "a.ninja:1: expected '=', got eof\nx\n ^ near here", files: ["a.ninja": "x"]),
        .init(text: "rule r\n  command = r\nbuild \(String(repeating: "x", count: 80)) $\n: r $\n", message: "input:5: unexpected EOF\n"),
        // Context lines: cut at 72 columns, and none when the token is at column 72 or beyond.
        .init(text: "rule r\n  command = r\nbuild \(String(repeating: "y", count: 70)): nope\n", message: "input:3: unknown build rule 'nope'\n"),
        .init(text: "rule r\n  command = r\nbuild \(String(repeating: "y", count: 65)): nope x\n", message: "input:3: unknown build rule 'nope'\n"),
        .init(
            text: "rule r\n  command = r\nbuild \(String(repeating: "y", count: 62)): nope x\n",
            message: "input:3: unknown build rule 'nope'\nbuild \(String(repeating: "y", count: 62)): no...\n"
                + String(repeating: " ", count: 70) + "^ near here"),
        .init(
            text: "rule r\n  command = r\nbuild \(String(repeating: "y", count: 61)): nope x\n",
            message: "input:3: unknown build rule 'nope'\nbuild \(String(repeating: "y", count: 61)): nop...\n"
                + String(repeating: " ", count: 69) + "^ near here"),
    ]

    @Test(arguments: cases)
    func failsWithNinjasMessage(_ broken: BrokenManifest) {
        #expect(ManifestTesting.error(broken.text, files: broken.files) == broken.message)
    }

    @Test func versionNewerThanThisNinjaIsFatal() {
        #expect(throws: ManifestError("ninja version (1.11.1) incompatible with build file ninja_required_version version (1.12).", isFatal: true)) {
            try ManifestParser.parse("ninja_required_version = 1.12\n")
        }
        #expect(throws: ManifestError("ninja version (1.11.1) incompatible with build file ninja_required_version version (2).", isFatal: true)) {
            try ManifestParser.parse("ninja_required_version = 2\n")
        }
        #expect(throws: ManifestError("ninja version (1.5) incompatible with build file ninja_required_version version (1.7.1).", isFatal: true)) {
            try ManifestParser.parse("ninja_required_version = 1.7.1\n", options: .init(ninjaVersion: "1.5"))
        }
    }

    @Test func versionCheckHappensBeforeLaterSyntaxErrors() {
        #expect(throws: ManifestError("ninja version (1.11.1) incompatible with build file ninja_required_version version (9.0).", isFatal: true)) {
            try ManifestParser.parse("ninja_required_version = 9.0\nthis is not ninja\n")
        }
    }

    @Test func olderVersionsAreAcceptedAndAnOlderMajorWarns() throws {
        #expect(try ManifestTesting.warnings("ninja_required_version = 1.3\n").isEmpty)
        #expect(try ManifestTesting.warnings("ninja_required_version = 1.11.1\n").isEmpty)
        #expect(
            try ManifestTesting.warnings("ninja_required_version = 0.1\n") == [
                "ninja executable version (1.11.1) greater than build file ninja_required_version (0.1); versions may be incompatible."
            ])
    }

    @Test func warningsComeBeforeTheError() {
        var warnings: [String] = []
        #expect(throws: ManifestError.self) {
            try ManifestParser.parse("ninja_required_version = 0.1\nbuild\n") { warnings.append($0) }
        }
        #expect(warnings.count == 1)
    }

    @Test func aFileThatIncludesItselfStopsAtTheDepthLimit() throws {
        let message = try #require(ManifestTesting.error("include self.ninja\n", files: ["self.ninja": "x = 1\ninclude self.ninja\n"]))
        #expect(message.hasPrefix("self.ninja:2: 'self.ninja': include and subninja nested more than 100 deep\n"))
        let subninja = ManifestTesting.error("subninja build.ninja\n", files: ["build.ninja": "subninja build.ninja\n"])
        #expect(subninja?.contains("nested more than 100 deep") == true)
    }

    @Test func includesJustUnderTheLimitRead() throws {
        var files: [String: String] = [:]
        for level in 1..<ManifestParser.maximumIncludeDepth - 1 { files["\(level).ninja"] = "include \(level + 1).ninja\n" }
        files["\(ManifestParser.maximumIncludeDepth - 1).ninja"] = "deepest = yes\n"
        let graph = try ManifestTesting.parse("include 1.ninja\n", files: files)
        #expect(graph.variable("deepest") == "yes")
    }

    @Test func aPathOfMoreThanSixtyComponentsIsFatal() {
        let path = Array(repeating: "a", count: 61).joined(separator: "/")
        #expect(throws: ManifestError("path has too many components : \(path)", isFatal: true)) {
            try ManifestParser.parse("build \(path): phony\n")
        }
    }
}
