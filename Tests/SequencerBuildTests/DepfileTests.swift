import Testing
import SequencerBuild

/// Depfiles as compilers write them, and what is wrong with broken ones.
@Suite struct DepfileTests {
    @Test(arguments: [
        // What `cc -MD -MF build/main.d` writes.
        ("build/main.o: src/main.c src/vector.h \\\n  src/matrix.h\n", ["src/main.c", "src/vector.h", "src/matrix.h"]),
        // `-MP` adds a rule per header with no inputs; CRLF line ends.
        ("a.o: a.c a.h\r\n\r\na.h:\r\n", ["a.c", "a.h"]),
        // Escaped spaces and `#`, `$$`, a backslash before anything else kept.
        ("out/my\\ file.o: my\\ file.c \\#x.h $$HOME.h C:\\src\\a.h\n", ["my file.c", "#x.h", "$HOME.h", "C:\\src\\a.h"]),
        // A `:` inside a name; several targets; tabs; a repeated input counted once.
        ("a.o b.o:\tC:/src/a.c  x.h x.h\n", ["C:/src/a.c", "x.h"]),
        // A space before the colon, a comment, and an empty file.
        ("a.o : a.c # a comment\n# only a comment\n", ["a.c"]),
        ("", []),
        ("a.o:\n", []),
        // A continuation at the very end.
        ("a.o: a.c \\\n", ["a.c"]),
    ] as [(String, [String])])
    func readsTheInputs(_ text: String, _ expected: [String]) throws {
        #expect(try Depfile.inputs(in: text) == expected)
    }

    @Test(arguments: [
        ("a.o: a.c\nstray words here\n", 2),
        ("a.o: a.c \\\n  b.h\nno colon\n", 3),
        (": a.c\n", 1),
        ("garbage", 1),
    ] as [(String, Int)])
    func refusesMalformedFiles(_ text: String, _ line: Int) {
        #expect(throws: Depfile.Malformed.self) { try Depfile.inputs(in: text) }
        do {
            _ = try Depfile.inputs(in: text)
        } catch {
            #expect(error.line == line, "\(error)")
        }
    }
}
