import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerWorkflowFile

/// Globs over a tree of files at several depths: a walk goes only as deep as the pattern can match.
@Suite struct FilePatternTests {
    @Test func globsMatchAtTheirDepth() throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-pattern")
        for name in ["a.c", "b.h", "src/c.c", "src/deep/d.c", "src/deep/er/e.c", "lib/f.c", ".hidden/g.c"] {
            _ = try directory.write(name, "")
        }
        func expand(_ pattern: String) -> [String] { FilePattern.expand(pattern, in: directory.path) }
        #expect(expand("*.c") == ["a.c"])
        #expect(expand("*/*.c") == ["lib/f.c", "src/c.c"])
        #expect(expand("src/*/*.c") == ["src/deep/d.c"])
        #expect(expand("src/**/*.c") == ["src/c.c", "src/deep/d.c", "src/deep/er/e.c"])
        #expect(expand("**/*.c") == ["a.c", "lib/f.c", "src/c.c", "src/deep/d.c", "src/deep/er/e.c"])
        #expect(expand("s?c/[cd].c") == ["src/c.c"])
        #expect(expand("missing/*.c").isEmpty)
        #expect(expand("plain/path.c") == ["plain/path.c"])
        #expect(expand(directory.path + "/src/*.c") == [directory.path + "/src/c.c"])
    }
}
