import Foundation
import Testing
import SequencerTestHelpers

/// `sequencer run OUTPUT`: an output names the job that makes it, like `make zstd`.
@Suite(.suiteTimeLimit)
struct OutputTargetTests {
    @Test(arguments: ["programs/zstd", "programs/./zstd", "obj/../programs/zstd", "zstd-absolute"])
    func anOutputNameRunsTheJobThatMakesItAndWhatItNeeds(name: String) async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("build.yml", CLI.programs)
        let target = name == "zstd-absolute" ? cli.path("programs/zstd") : name
        let result = try await cli.run(["run", "build.yml", target])
        #expect(result.status == 0, "\(result.output)")
        #expect(cli.read("programs/zstd") == "object\n")
        #expect(cli.lines("compile.count") == 1)
        #expect(cli.lines("other.count") == 0, "a job that makes another output ran")
    }

    @Test func anOutputAsWrittenInItsJobIsATarget() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("build.yml", CLI.programs)
        // `zstd` is written relative to the job's `cwd: programs`.
        let result = try await cli.run(["run", "build.yml", "zstd"])
        #expect(result.status == 0, "\(result.output)")
        #expect(cli.lines("zstd.count") == 1)
        #expect(cli.lines("other.count") == 0)
    }

    @Test func aNameThatIsBothAJobAndAnOutputIsTheJob() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("build.yml", """
            jobs:
              other: touch other.ran
              maker:
                run: touch other
                outputs: [other]
            """)
        let result = try await cli.run(["run", "build.yml", "other"])
        #expect(result.status == 0, "\(result.output)")
        #expect(FileManager.default.fileExists(atPath: cli.path("other.ran")))
        #expect(!FileManager.default.fileExists(atPath: cli.path("other")))
    }

    @Test func anUnknownNameIsNeitherAJobNorAnOutput() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("build.yml", CLI.programs)
        let result = try await cli.run(["run", "build.yml", "obj/zstd.oo"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no job or output named 'obj/zstd.oo' in build.yml; did you mean 'obj/zstd.o'?"),
                "\(result.output)")
        #expect(cli.lines("compile.count") == 0)
    }

    @Test func resumeSelectsTheSameOutputs() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("build.yml", CLI.programs.replacingOccurrences(
            of: "cat ../obj/zstd.o > zstd", with: "test -f ../go && cat ../obj/zstd.o > zstd"))
        #expect(try await cli.run(["run", "build.yml", "programs/zstd"]).status == 1)
        cli.release()
        let resumed = try await cli.run(["resume", "-f", "build.yml"])
        #expect(resumed.status == 0, "\(resumed.output)")
        #expect(cli.read("programs/zstd") == "object\n")
        #expect(cli.lines("other.count") == 0)
    }
}

extension CLI {
    /// A compile job writing `obj/`, a link job run in `programs/` that needs it, and an
    /// unrelated job; each counts its runs in a file.
    static let programs = """
        jobs:
          compile:
            run: echo c >> compile.count; echo object > obj/zstd.o
            outputs: [obj/zstd.o]
          link:
            needs: [compile]
            cwd: programs
            run: echo z >> ../zstd.count; cat ../obj/zstd.o > zstd
            outputs: [zstd]
          other:
            run: echo o >> other.count; touch other
            outputs: [other]
        """
}
