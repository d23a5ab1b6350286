import Foundation
import Testing
import SequencerTestHelpers

/// The parent directories of declared outputs are made before a job's command runs, like ninja.
@Suite(.suiteTimeLimit)
struct OutputDirectoryTests {
    @Test func parentDirectoriesOfOutputsAreMadeBeforeTheCommandRuns() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try FileManager.default.createDirectory(atPath: cli.path("programs"), withIntermediateDirectories: true)
        try cli.write("build.yml", """
            jobs:
              deep:
                run: echo deep > obj/a/b/c.o
                outputs: [obj/a/b/c.o, obj/a/b/d.o, top.txt]
              inside:
                cwd: programs
                run: echo inside > bin/zstd
                outputs: [bin/zstd]
            """)
        let result = try await cli.run(["run", "build.yml"])
        #expect(result.status == 0, "\(result.output)")
        #expect(cli.read("obj/a/b/c.o") == "deep\n")
        #expect(cli.read("programs/bin/zstd") == "inside\n")
    }

    @Test func aDirectoryThatCannotBeMadeFailsTheJobNamingIt() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("obj", "a file where the directory should be\n")
        try cli.write("build.yml", """
            jobs:
              compile:
                run: touch ran; echo x > obj/a.o
                outputs: [obj/a.o]
            """)
        let result = try await cli.run(["run", "build.yml"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("FAILED compile (could not start: cannot create the directory \(cli.path("obj")) for the output 'obj/a.o'"),
                "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: cli.path("ran")), "the command ran")
    }
}
