import Testing

@testable import SequencerNinja

/// MSVC `/showIncludes` output as ninja reads it (`deps = msvc`): ninja's clparser_test.cc, and
/// the path canonicalisation it applies on POSIX.
struct ShowIncludesTests {
    @Test func includeLines() {
        #expect(ShowIncludesParser.includedPath(inLine: "") == nil)
        #expect(ShowIncludesParser.includedPath(inLine: "Sample compiler output") == nil)
        #expect(ShowIncludesParser.includedPath(inLine: "Note: including file: c:\\Some Files\\foobar.h") == "c:\\Some Files\\foobar.h")
        #expect(ShowIncludesParser.includedPath(inLine: "Note: including file:    c:\\initspaces.h") == "c:\\initspaces.h")
        #expect(
            ShowIncludesParser.includedPath(inLine: "Non-default prefix: inc file:    c:\\initspaces.h", prefix: "Non-default prefix: inc file:")
                == "c:\\initspaces.h")
        // The prefix alone, or with only spaces after it, is not an include.
        #expect(ShowIncludesParser.includedPath(inLine: "Note: including file: ") == nil)
        #expect(ShowIncludesParser.includedPath(inLine: "Note: including file:    ") == nil)
        // The default prefix ends with a space.
        #expect(ShowIncludesParser.includedPath(inLine: "Note: including file:x.h") == nil)
        #expect(ShowIncludesParser.defaultPrefix == "Note: including file: ")
    }

    @Test func sourceFileNames() {
        #expect(ShowIncludesParser.isSourceFileName("foobar.cc"))
        #expect(ShowIncludesParser.isSourceFileName("foo bar.cc"))
        #expect(ShowIncludesParser.isSourceFileName("baz.c"))
        #expect(ShowIncludesParser.isSourceFileName("FOOBAR.CC"))
        #expect(ShowIncludesParser.isSourceFileName("x.cxx") && ShowIncludesParser.isSourceFileName("x.CPP") && ShowIncludesParser.isSourceFileName("x.c++"))
        #expect(!ShowIncludesParser.isSourceFileName("src\\cl_helper.cc(166) : fatal error C1075: end of file found ..."))
        #expect(!ShowIncludesParser.isSourceFileName("x.h"))
        #expect(!ShowIncludesParser.isSourceFileName(""))
    }

    @Test func parseWithAPrefix() {
        let result = ShowIncludesParser.parse("foo\r\nNote: inc file prefix:  foo.h\r\nbar\r\n", prefix: "Note: inc file prefix:")
        #expect(result.remainingText == "foo\nbar\n")
        #expect(result.includes == ["foo.h"])
    }

    @Test func sourceFileNameIsDropped() {
        let result = ShowIncludesParser.parse("foo.cc\r\ncl: warning\r\n")
        #expect(result.remainingText == "cl: warning\n")
        #expect(result.includes.isEmpty)
    }

    @Test func sourceFileNamesAfterIncludesAreKept() {
        let result = ShowIncludesParser.parse("foo.cc\r\nNote: including file: foo.h\r\nsomething something foo.cc\r\n")
        #expect(result.remainingText == "something something foo.cc\n")
        #expect(result.includes == ["foo.h"])
    }

    @Test func systemIncludesAreDropped() {
        let result = ShowIncludesParser.parse(
            "Note: including file: c:\\Program Files\\foo.h\r\nNote: including file: d:\\Microsoft Visual Studio\\bar.h\r\nNote: including file: path.h\r\n"
        )
        #expect(result.remainingText == "")
        #expect(result.includes == ["path.h"])
        #expect(ShowIncludesParser.isSystemInclude("C:/PROGRAM FILES (X86)/x.h"))
        #expect(!ShowIncludesParser.isSystemInclude("c:/programfiles/x.h"))
    }

    @Test func includesAreKeptOnceAndSorted() {
        let result = ShowIncludesParser.parse("Note: including file: foo.h\r\nNote: including file: bar.h\r\nNote: including file: foo.h\r\n")
        #expect(result.remainingText == "")
        #expect(result.includes == ["bar.h", "foo.h"])
    }

    @Test func includesAreCanonicalBeforeBeingKeptOnce() {
        let result = ShowIncludesParser.parse("Note: including file: sub/./foo.h\r\nNote: including file: bar.h\r\nNote: including file: sub/foo.h\r\n")
        #expect(result.remainingText == "")
        #expect(result.includes == ["bar.h", "sub/foo.h"])
    }

    @Test func lineEnds() {
        // LF, CR and CRLF end lines; CR CR LF is a line, an empty line, then the next.
        let result = ShowIncludesParser.parse("a\nb\rc\r\nd\r\r\ne")
        #expect(result.remainingText == "a\nb\nc\nd\n\ne\n")
        #expect(ShowIncludesParser.parse("").remainingOutput.isEmpty)
        #expect(ShowIncludesParser.parse("\n").remainingText == "\n")
        // LF CR: a line, then an empty one.
        #expect(ShowIncludesParser.parse("x\n\ry").remainingText == "x\n\ny\n")
    }

    @Test func prefixLineWithNothingAfterItIsOutput() {
        let result = ShowIncludesParser.parse("Note: including file:   \r\nwarning\r\n")
        #expect(result.includes.isEmpty)
        #expect(result.remainingText == "Note: including file:   \nwarning\n")
    }

    @Test func bytesAreKept() {
        let output: [UInt8] = Array("Note: including file: caf".utf8) + [0xE9] + Array(".h\r\nwarn ".utf8) + [0xFF] + [0x0A]
        let result = ShowIncludesParser.parse(output)
        #expect(result.includeBytes == [Array("caf".utf8) + [0xE9] + Array(".h".utf8)])
        #expect(result.remainingOutput == Array("warn ".utf8) + [0xFF, 0x0A])
    }

    @Test func canonicalPaths() {
        let cases: [(String, String)] = [
            ("foo.h", "foo.h"), ("./foo.h", "foo.h"), ("./foo/./bar.h", "foo/bar.h"),
            ("./x/foo/../bar.h", "x/bar.h"), ("./x/foo/../../bar.h", "bar.h"), ("foo//bar", "foo/bar"),
            ("foo//.//..///bar", "bar"), ("./x/../foo/../../bar.h", "../bar.h"), ("foo/./.", "foo"),
            ("foo/bar/..", "foo"), ("foo/.hidden_bar", "foo/.hidden_bar"), ("/foo", "/foo"),
            ("//foo", "/foo"), ("..", ".."), ("../..", "../.."), ("../foo/..", ".."), ("./", "."),
            (".", "."), ("a/..", "."), ("foo/", "foo"), ("/..", "/.."), ("/", ""), ("/a/..", ""),
            ("../../a/..", "../.."), ("a\\b/../c", "c"), ("...", "..."), ("a/.../b", "a/.../b"),
        ]
        for (path, canonical) in cases {
            let result = ShowIncludesPathCanonicalizer.canonical(Array(path.utf8))
            #expect(String(decoding: result, as: UTF8.self) == canonical, "\(path)")
        }
        #expect(ShowIncludesPathCanonicalizer.canonical([]).isEmpty)
    }
}
