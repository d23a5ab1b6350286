import Foundation
import Testing
import SequencerTestHelpers

/// `${needs.outputs}` through the command line: an archive made of its needs' outputs.
@Suite(.suiteTimeLimit)
struct NeedsOutputsCommandTests {
    @Test func aDeletedSourcesStaleObjectDoesNotReachTheArchive() async throws {
        let cli = try CLI()
        for name in ["a", "b"] { try cli.write("src/\(name).c", "object of \(name)\n") }
        try cli.write("sequencer.yml", """
            jobs:
              compile-${stem}:
                for: { files: "src/*.c" }
                run: mkdir -p build && cp "${item}" "build/${stem}.o"
                outputs: ["build/${stem}.o"]
              resource:
                run: mkdir -p build && echo "resource with a space" > "build/my resource.o"
                outputs: [build/my resource.o]
              archive:
                needs: [compile-*, resource]
                run: cat ${needs.outputs} > build/lib.a
                inputs: ["${needs.outputs}"]
                outputs: [build/lib.a]
            """)
        let first = try await cli.run(["run"])
        #expect(first.status == 0, "\(first.output)")
        #expect(cli.read("build/lib.a") == "object of a\nobject of b\nresource with a space\n")

        try FileManager.default.removeItem(atPath: cli.path("src/b.c"))
        let second = try await cli.run(["run"])
        #expect(second.status == 0, "\(second.output)")
        // The stale object is still there, and stays out of the archive.
        #expect(FileManager.default.fileExists(atPath: cli.path("build/b.o")))
        #expect(cli.read("build/lib.a") == "object of a\nresource with a space\n")
    }
}
