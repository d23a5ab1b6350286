import Testing

@testable import SequencerNinja

/// Depfiles as ninja 1.11 parses them: what ninja's depfile_parser_test.cc checks, and more.
struct DepfileTests {
    static func parse(_ text: String) throws(NinjaDepfileError) -> NinjaDepfile {
        try NinjaDepfile(parsing: text)
    }

    @Test func basic() throws {
        let depfile = try Self.parse("build/ninja.o: ninja.cc ninja.h eval_env.h manifest_parser.h\n")
        #expect(depfile.outputs == ["build/ninja.o"])
        #expect(depfile.inputs == ["ninja.cc", "ninja.h", "eval_env.h", "manifest_parser.h"])
    }

    @Test func whitespaceAndContinuationBeforeTheTarget() throws {
        let depfile = try Self.parse(" \\\n  out: in\n")
        #expect(depfile.outputs == ["out"])
        #expect(depfile.inputs == ["in"])
    }

    @Test func continuations() throws {
        for text in ["foo.o: \\\n  bar.h baz.h\n", "foo.o: \\\r\n  bar.h baz.h\r\n"] {
            let depfile = try Self.parse(text)
            #expect(depfile.outputs == ["foo.o"])
            #expect(depfile.inputs == ["bar.h", "baz.h"])
        }
    }

    @Test func backslashesInWindowsPaths() throws {
        let depfile = try Self.parse(
            "Project\\Dir\\Build\\Release8\\Foo\\Foo.res : \\\n  Dir\\Library\\Foo.rc \\\n  Dir\\Library\\Version\\Bar.h \\\n  Dir\\Library\\Foo.ico \\\n  Project\\Thing\\Bar.tlb \\\n"
        )
        #expect(depfile.outputs == ["Project\\Dir\\Build\\Release8\\Foo\\Foo.res"])
        #expect(depfile.inputs == ["Dir\\Library\\Foo.rc", "Dir\\Library\\Version\\Bar.h", "Dir\\Library\\Foo.ico", "Project\\Thing\\Bar.tlb"])
    }

    @Test func escapedSpaces() throws {
        let depfile = try Self.parse("a\\ bc\\ def:   a\\ b c d")
        #expect(depfile.outputs == ["a bc def"])
        #expect(depfile.inputs == ["a b", "c", "d"])
    }

    @Test func runsOfBackslashes() throws {
        // 2N+1 backslashes and a space: N backslashes and the space. 2N backslashes and a space:
        // the backslashes, and the end of the path. A single backslash before # goes.
        let depfile = try Self.parse("a\\ b\\#c.h: \\\\\\\\\\  \\\\\\\\ \\\\share\\info\\\\#1")
        #expect(depfile.outputs == ["a b#c.h"])
        #expect(depfile.inputs == ["\\\\ ", "\\\\\\\\", "\\\\share\\info\\#1"])
    }

    @Test func backslashesBeforeOtherBytes() throws {
        let depfile = try Self.parse("\\!\\@\\#$$\\%\\^\\&\\[\\]\\\\:")
        #expect(depfile.outputs == ["\\!\\@#$\\%\\^\\&\\[\\]\\\\"])
        #expect(depfile.inputs.isEmpty)
    }

    @Test func escapedColonsOfWindowsDrives() throws {
        let depfile = try Self.parse("c\\:\\gcc\\x86_64-w64-mingw32\\include\\stddef.o: \\\n c:\\gcc\\x86_64-w64-mingw32\\include\\stddef.h \n")
        #expect(depfile.outputs == ["c:\\gcc\\x86_64-w64-mingw32\\include\\stddef.o"])
        #expect(depfile.inputs == ["c:\\gcc\\x86_64-w64-mingw32\\include\\stddef.h"])
    }

    @Test func backslashColonBeforeWhiteSpaceIsATargetsColon() throws {
        let depfile = try Self.parse("foo1\\: x\nfoo1\\:\nfoo1\\:\r\nfoo1\\:\t\nfoo1\\:")
        #expect(depfile.outputs == ["foo1\\"])
        #expect(depfile.inputs == ["x"])
    }

    @Test func specialCharacters() throws {
        let depfile = try Self.parse(
            "C:/Program\\ Files\\ (x86)/Microsoft\\ crtdefs.h: \\\n en@quot.header~ t+t-x!=1 \\\n openldap/slapd.d/cn=config/cn=schema/cn={0}core.ldif\\\n Fu\u{E4}ball\\\n a[1]b@2%c"
        )
        #expect(depfile.outputs == ["C:/Program Files (x86)/Microsoft crtdefs.h"])
        #expect(depfile.inputs == ["en@quot.header~", "t+t-x!=1", "openldap/slapd.d/cn=config/cn=schema/cn={0}core.ldif", "Fu\u{E4}ball", "a[1]b@2%c"])
    }

    @Test func repeatedTargetsAreKeptOnce() throws {
        let depfile = try Self.parse("foo foo: x y z")
        #expect(depfile.outputs == ["foo"])
        #expect(depfile.inputs == ["x", "y", "z"])
    }

    @Test func severalTargets() throws {
        let depfile = try Self.parse("foo bar: x y z")
        #expect(depfile.outputs == ["foo", "bar"])
        #expect(depfile.inputs == ["x", "y", "z"])
    }

    @Test func rulesWithoutInputs() throws {
        let depfile = try Self.parse("foo: x\nfoo: \nfoo:\n")
        #expect(depfile.outputs == ["foo"])
        #expect(depfile.inputs == ["x"])
    }

    @Test func rulesOfTheSameTargetAreJoined() throws {
        let texts = [
            "foo: x\nfoo: y\nfoo \\\nfoo: z\n",
            "foo: x\r\nfoo: y\r\nfoo \\\r\nfoo: z\r\n",
            "foo: x\\\n     y\nfoo \\\nfoo: z\n",
            "foo: x\\\r\n     y\r\nfoo \\\r\nfoo: z\r\n",
            " foo: x\n foo: y\n foo: z\n",
            " foo: x\r\n foo: y\r\n foo: z\r\n",
        ]
        for text in texts {
            let depfile = try Self.parse(text)
            #expect(depfile.outputs == ["foo"], "\(text)")
            #expect(depfile.inputs == ["x", "y", "z"], "\(text)")
        }
    }

    @Test func emptyRulesOfInputsAreTolerated() throws {
        // What -MP adds: a rule without inputs for each input.
        for text in ["foo: x y z\nx:\ny:\nz:\n", "foo: x\nx:\nfoo: y\ny:\nfoo: z\nz:\n"] {
            let depfile = try Self.parse(text)
            #expect(depfile.outputs == ["foo"])
            #expect(depfile.inputs == ["x", "y", "z"])
        }
    }

    @Test func rulesOfDifferentTargets() throws {
        let depfile = try Self.parse("foo: x y\nbar: y z\n")
        #expect(depfile.outputs == ["foo", "bar"])
        #expect(depfile.inputs == ["x", "y", "z"])
    }

    @Test func inputsMayNotHaveInputs() throws {
        #expect(throws: NinjaDepfileError.inputWithInputs) { try Self.parse("foo: x y z\nx: alsoin\ny:\nz:\n") }
        #expect(NinjaDepfileError.inputWithInputs.message == "inputs may not also have inputs")
        // An input already known is no new input: no error.
        #expect(try Self.parse("foo: x y\nx: y\n").inputs == ["x", "y"])
        // A new rule (line) starts afresh.
        #expect(try Self.parse("foo: x\nx:\nbar: w\n").inputs == ["x", "w"])
    }

    @Test func samePathOnBothSides() throws {
        // A target that is also its own input: the input is kept, as an input.
        let depfile = try Self.parse("foo: foo bar\n")
        #expect(depfile.outputs == ["foo"])
        #expect(depfile.inputs == ["foo", "bar"])
        let inputFirst = try Self.parse("foo: bar\nbar foo: \n")
        #expect(inputFirst.outputs == ["foo"])
        #expect(inputFirst.inputs == ["bar"])
    }

    @Test func missingColon() {
        #expect(throws: NinjaDepfileError.missingColon) { try Self.parse("foo.o foo.c\n") }
        #expect(NinjaDepfileError.missingColon.message == "expected ':' in depfile")
        // ninja 1.11 says so of empty and blank content too (its callers skip empty files).
        #expect(throws: NinjaDepfileError.missingColon) { try Self.parse("") }
        #expect(throws: NinjaDepfileError.missingColon) { try Self.parse("\n\n") }
        #expect(throws: NinjaDepfileError.missingColon) { try NinjaDepfile(parsing: [UInt8]()) }
    }

    @Test func bytesThatEndPathsInNinja111() throws {
        // Not path bytes in ninja 1.11 (1.13 accepts &, ', " and ?): each ends a path, and goes.
        let depfile = try Self.parse("out: foo&bar.h a'b \"q\" what? x*y a|b c;d e<f g>h i^j k`l m,n")
        // (The second "a" and "b" are inputs already seen.)
        #expect(depfile.inputs == ["foo", "bar.h", "a", "b", "q", "what", "x", "y", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m,n"])
        // An unescaped # and a lone $ end paths too.
        #expect(try Self.parse("out: a#b c$d e$$f").inputs == ["a", "b", "c", "d", "e$f"])
    }

    @Test func backslashesAtLineEnds() throws {
        // Two backslashes before a newline stay (the second counts as the escaped byte).
        #expect(try Self.parse("out: a\\\\\nb: c\n").inputs == ["a\\\\", "c"])
        #expect(try Self.parse("out: a\\\\\\\nb: c\n").inputs == ["a\\\\\\", "c"])
        // A backslash at the very end, or before a lone CR, goes.
        #expect(try Self.parse("out: a\\").inputs == ["a"])
        #expect(try Self.parse("out: a\\\rb").inputs == ["a", "b"])
        // A lone CR is white space, not a newline: the rule goes on.
        #expect(try Self.parse("out: a\rb").inputs == ["a", "b"])
    }

    @Test func bytesAreKeptAsTheyAre() throws {
        // Not UTF-8: kept intact in the bytes.
        let content: [UInt8] = Array("out: a".utf8) + [0xFF, 0xFE] + Array(" b\u{E9}\n".utf8)
        let depfile = try NinjaDepfile(parsing: content)
        #expect(depfile.outputBytes == [Array("out".utf8)])
        #expect(depfile.inputBytes == [[UInt8(ascii: "a"), 0xFF, 0xFE], Array("b\u{E9}".utf8)])
        #expect(depfile.inputs == ["a\u{FFFD}\u{FFFD}", "b\u{E9}"])
        // A NUL separates paths.
        #expect(try NinjaDepfile(parsing: Array("out: a".utf8) + [0] + Array("b".utf8)).inputs == ["a", "b"])
    }

    @Test func colonsInsidePaths() throws {
        // A colon followed by a path byte does not end the path.
        let depfile = try Self.parse("out: c:/x/y.h a:b\n")
        #expect(depfile.inputs == ["c:/x/y.h", "a:b"])
        // A path ending with a colon on the right is an input without its colon.
        #expect(try Self.parse("out: a: b\n").inputs == ["a", "b"])
    }
}
