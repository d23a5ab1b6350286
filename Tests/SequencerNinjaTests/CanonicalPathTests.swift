import Testing
@testable import SequencerNinja

/// ninja's CanonicalizePath on POSIX, as util_test.cc checks it.
@Suite struct CanonicalPathTests {
    @Test(arguments: [
        ("", ""),
        ("foo.h", "foo.h"),
        ("./foo.h", "foo.h"),
        ("./foo/./bar.h", "foo/bar.h"),
        ("./x/foo/../bar.h", "x/bar.h"),
        ("./x/foo/../../bar.h", "bar.h"),
        ("foo//bar", "foo/bar"),
        ("foo//.//..///bar", "bar"),
        ("./x/../foo/../../bar.h", "../bar.h"),
        ("foo/./.", "foo"),
        ("foo/bar/..", "foo"),
        ("foo/.hidden_bar", "foo/.hidden_bar"),
        ("/foo", "/foo"),
        ("//foo", "/foo"),
        ("/", ""),
        ("/foo/..", ""),
        (".", "."),
        ("./.", "."),
        ("foo/..", "."),
        ("../../foo/bar.h", "../../foo/bar.h"),
        ("test/../../foo/bar.h", "../foo/bar.h"),
        ("/usr/include/stdio.h", "/usr/include/stdio.h"),
        // Beyond util_test.cc.
        ("..", ".."),
        ("../..", "../.."),
        ("a/../..", ".."),
        ("../.", ".."),
        ("foo/", "foo"),
        ("foo/.", "foo"),
        ("./", "."),
        ("/..", "/.."),
        ("/../a", "/../a"),
        ("a/b/../../../c", "../c"),
        ("...", "..."),
        ("a/.../b", "a/.../b"),
        ("..a/b", "..a/b"),
        ("a\\b", "a\\b"),
    ])
    func canonicalisesLikeNinja(path: String, expected: String) throws {
        #expect(try CanonicalPath.canonicalize(path) == expected)
    }

    @Test func sixtyComponentsAreAllowed() throws {
        let path = Array(repeating: "a", count: 58).joined(separator: "/") + "/x/y.h"
        #expect(try CanonicalPath.canonicalize(path) == path)
        let dotted = String(repeating: "a/./", count: 32) + "x.h"
        #expect(try CanonicalPath.canonicalize(dotted) == String(repeating: "a/", count: 32) + "x.h")
    }

    @Test func componentsRemovedByDotDotDoNotCount() throws {
        let path = String(repeating: "a/", count: 59) + String(repeating: "b/../", count: 30) + "x"
        #expect(try CanonicalPath.canonicalize(path) == String(repeating: "a/", count: 59) + "x")
    }

    @Test func moreThanSixtyComponentsIsFatalWithNinjasMessage() {
        let path = Array(repeating: "a", count: 61).joined(separator: "/")
        #expect(throws: ManifestError("path has too many components : \(path)", isFatal: true)) {
            try CanonicalPath.canonicalize(path)
        }
        // ninja prints its buffer as it stands: the canonical start, then the rest as written.
        let dotted = "./" + Array(repeating: "b", count: 61).joined(separator: "/./")
        let expected = Array(repeating: "b", count: 60).joined(separator: "/") + "/"
            + String(dotted.utf8.dropFirst(120).map { Character(UnicodeScalar($0)) })
        #expect(throws: ManifestError("path has too many components : \(expected)", isFatal: true)) {
            try CanonicalPath.canonicalize(dotted)
        }
    }

    @Test func bytesAreCanonicalisedInPlace() throws {
        var bytes = Array("./a//b/../c".utf8)
        try CanonicalPath.canonicalize(&bytes)
        #expect(bytes == Array("a/c".utf8))
    }
}
