import Foundation
import SequencerBuild
import SequencerWorkflowFile
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Globs are walked once while no job has run, and again after one has.
@Suite struct PatternExpansionsTests {
    @Test func aGlobIsWalkedOnceUntilFilesMayHaveChanged() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("src/deep"), withIntermediateDirectories: true)
        try "a".write(toFile: directory.file("src/a.h"), atomically: true, encoding: .utf8)
        let expansions = PatternExpansions()
        for _ in 0..<40 {
            #expect(expansions.expand("src/**/*.h", in: directory.path) == ["src/a.h"])
        }
        #expect(expansions.walks == 1)
        #expect(expansions.expand("src/*.h", in: directory.path) == ["src/a.h"])
        #expect(expansions.walks == 2, "another pattern is walked on its own")
        #expect(expansions.expand("in.txt", in: directory.path) == ["in.txt"])
        #expect(expansions.walks == 2, "a plain path is not walked")

        // A job ran and wrote a file the glob matches: the next expansion sees it.
        try "b".write(toFile: directory.file("src/deep/b.h"), atomically: true, encoding: .utf8)
        #expect(expansions.expand("src/**/*.h", in: directory.path) == ["src/a.h"], "nothing ran yet")
        expansions.filesChanged()
        #expect(expansions.expand("src/**/*.h", in: directory.path) == ["src/a.h", "src/deep/b.h"])
        #expect(expansions.expand("src/**/*.h", in: directory.path) == ["src/a.h", "src/deep/b.h"])
        #expect(expansions.walks == 3)
    }

    @Test func outputsMatchingAPatternAreFoundWithoutTheFileSystem() {
        let outputs = ["obj/a.o", "obj/sub/b.o", "lib.a", "obj/.hidden.o"]
        #expect(FilePattern.matching("obj/*.o", among: outputs) == ["obj/a.o"])
        #expect(FilePattern.matching("obj/**/*.o", among: outputs) == ["obj/a.o", "obj/sub/b.o"])
        #expect(FilePattern.matching("lib.a", among: outputs) == ["lib.a"])
        #expect(FilePattern.matching("*.so", among: outputs).isEmpty)
    }
}
