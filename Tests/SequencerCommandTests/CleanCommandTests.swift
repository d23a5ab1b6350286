import Foundation
import Testing
import SequencerTestHelpers

/// `sequencer clean`: deleting declared outputs, like `ninja -t clean`.
@Suite(.suiteTimeLimit)
struct CleanCommandTests {
    @Test func dryRunListsTheOutputsAndDeletesNothing() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("build.yml", CLI.programs)
        #expect(try await cli.run(["run", "build.yml"]).status == 0)
        let result = try await cli.run(["clean", "build.yml", "-n"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout == "obj/zstd.o\nprograms/zstd\nother\nsequencer: would remove 3 outputs\n")
        for output in ["obj/zstd.o", "programs/zstd", "other"] {
            #expect(FileManager.default.fileExists(atPath: cli.path(output)))
        }
    }

    @Test func cleanDeletesOutputsSoTheJobsRunAgain() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("build.yml", CLI.programs)
        #expect(try await cli.run(["run", "build.yml"]).status == 0)
        try FileManager.default.removeItem(atPath: cli.path("other"))  // a missing output is skipped
        let result = try await cli.run(["clean", "build.yml"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout == "sequencer: removed 2 outputs\n")
        #expect(!FileManager.default.fileExists(atPath: cli.path("obj/zstd.o")))
        #expect(!FileManager.default.fileExists(atPath: cli.path("programs/zstd")))
        #expect(FileManager.default.fileExists(atPath: cli.path("build.yml")))
        #expect(try await cli.run(["run", "build.yml"]).counts == "3 succeeded")
    }

    @Test func namedJobsCleanThemAndWhatTheyNeedOnly() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("build.yml", CLI.programs)
        #expect(try await cli.run(["run", "build.yml"]).status == 0)
        let result = try await cli.run(["clean", "build.yml", "zstd"])
        #expect(result.stdout == "sequencer: removed 2 outputs\n", "\(result.output)")
        #expect(FileManager.default.fileExists(atPath: cli.path("other")))
        #expect(!FileManager.default.fileExists(atPath: cli.path("obj/zstd.o")))
    }

    @Test func aDirectoryOutputIsDeletedOnlyWhenEmptyAndLinksAreNotFollowed() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("keep/precious.txt", "precious\n")
        try cli.write("build.yml", """
            jobs:
              dirs:
                run: mkdir -p empty full && touch full/x && ln -sf keep/precious.txt link
                outputs: [empty, full, link]
            """)
        #expect(try await cli.run(["run", "build.yml"]).status == 0)
        let result = try await cli.run(["clean", "build.yml"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout == "sequencer: removed 2 outputs; kept 1 non-empty directory: full\n")
        #expect(!FileManager.default.fileExists(atPath: cli.path("empty")))
        #expect(cli.read("full/x") == "")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: cli.path("link"))) == nil)
        #expect(cli.read("keep/precious.txt") == "precious\n")
    }

    @Test(arguments: [".", "build.yml", "..", "./sub/.."])
    func anOutputThatIsTheFileOrItsDirectoryIsRefused(output: String) async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("out.txt", "out\n")
        try cli.write("build.yml", """
            jobs:
              fine: { run: "true", outputs: [out.txt] }
              bad:
                run: "true"
                outputs: ["\(output)"]
            """)
        let result = try await cli.run(["clean", "build.yml"])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.stderr.contains("build.yml:3:3: error: job 'bad' has output '\(output)', which is the workflow file"),
                "\(result.output)")
        #expect(cli.read("out.txt") == "out\n", "clean deleted an output after refusing")
        #expect(FileManager.default.fileExists(atPath: cli.path("build.yml")))
    }
}
