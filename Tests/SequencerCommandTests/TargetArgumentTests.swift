import Foundation
import Testing
import SequencerTestHelpers

/// `sequencer run TARGET` with no file, as make and ninja users type it; `-f FILE`; and the
/// first argument as the file when it is an existing `.yml` or `.yaml` file.
@Suite(.suiteTimeLimit)
struct TargetArgumentTests {
    /// `hello` makes `hello.txt`; `config` makes `config.yml`; `other` touches `other.ran`.
    static let workflow = """
        jobs:
          hello:
            run: echo hi > hello.txt
            outputs: [hello.txt]
          config:
            run: touch config.yml
            outputs: [config.yml]
          other: touch other.ran
        """

    private func ran(_ cli: CLI, _ name: String) -> Bool { FileManager.default.fileExists(atPath: cli.path(name)) }

    @Test(arguments: ["hello.txt", "hello"])
    func aTargetWithNoFileIsAJobOrAnOutputOfTheDefaultFile(target: String) async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.workflow)
        let result = try await cli.run(["run", target])
        #expect(result.status == 0, "\(result.output)")
        #expect(cli.read("hello.txt") == "hi\n")
        #expect(!ran(cli, "other.ran"), "a job that was not asked for ran")
        // Once the output exists it is still a target, not a file to read.
        let again = try await cli.run(["run", target])
        #expect(again.status == 0, "\(again.output)")
        #expect(!ran(cli, "other.ran"))
    }

    @Test func anOutputEndingInYmlThatDoesNotExistYetIsATarget() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.workflow)
        let result = try await cli.run(["run", "config.yml"])
        #expect(result.status == 0, "\(result.output)")
        #expect(ran(cli, "config.yml"))
        #expect(!ran(cli, "hello.txt"))
    }

    @Test func anExistingYmlFileFirstIsTheWorkflowFile() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.workflow)
        try cli.write("x.yml", "jobs:\n  x: touch x.ran\n  y: touch y.ran\n")
        let result = try await cli.run(["run", "x.yml", "x"])
        #expect(result.status == 0, "\(result.output)")
        #expect(ran(cli, "x.ran"))
        #expect(!ran(cli, "y.ran"))
        #expect(!ran(cli, "hello.txt") && !ran(cli, "other.ran"), "the default file ran")
    }

    @Test(arguments: ["-f", "--file"])
    func dashFNamesTheFileAndEveryArgumentIsATarget(option: String) async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.workflow)
        // `sequencer.yml` is an existing .yml file, but with -f it is a job of other.yml.
        try cli.write("other.yml", "jobs:\n  job: touch job.ran\n  sequencer.yml: touch named.ran\n  unrelated: touch unrelated.ran\n")
        let result = try await cli.run(["run", option, "other.yml", "job", "sequencer.yml"])
        #expect(result.status == 0, "\(result.output)")
        #expect(ran(cli, "job.ran") && ran(cli, "named.ran"))
        #expect(!ran(cli, "unrelated.ran"))
        #expect(!ran(cli, "hello.txt"), "the default file ran")
    }

    @Test func aNameThatIsNeitherAJobNorAnOutputIsAnErrorNamingTheFile() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.workflow)
        let result = try await cli.run(["run", "helo"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("error: no job or output named 'helo' in sequencer.yml; did you mean 'hello'?"), "\(result.output)")
        #expect(!ran(cli, "hello.txt") && !ran(cli, "other.ran"))
    }

    @Test func aYmlNameThatIsNoFileAndNoTargetSaysBoth() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.workflow)
        let result = try await cli.run(["run", "build.yml"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("error: no job or output named 'build.yml' in sequencer.yml"), "\(result.output)")
        #expect(result.stderr.contains("error: build.yml is not a workflow file either: there is no such file"), "\(result.output)")
        #expect(!ran(cli, "hello.txt") && !ran(cli, "other.ran"))
    }

    @Test func aTargetWithNoDefaultFileSaysWhichFileIsMissing() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        let result = try await cli.run(["run", "hello"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("error: sequencer.yml: no such file; 'hello' is a job or output of the workflow file"),
                "\(result.output)")
        #expect(result.stderr.contains("-f FILE"), "\(result.output)")
    }

    @Test func dryRunTakesTargetsAsRunDoes() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.workflow)
        let result = try await cli.run(["run", "-n", "hello.txt"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("hello"), "\(result.output)")
        #expect(!result.output.contains("other"), "\(result.output)")
        #expect(!ran(cli, "hello.txt"))
    }

    @Test func watchTakesTargetsAsRunDoes() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.workflow)
        let watcher = try Watcher(cli, ["hello.txt"])
        #expect(await watcher.waitFor("[watch] watching"), "\(watcher.text)")
        #expect(await watcher.stop() == 130, "\(watcher.text)")
        #expect(cli.read("hello.txt") == "hi\n", "\(watcher.text)")
        #expect(!ran(cli, "other.ran"), "\(watcher.text)")
    }

    @Test func cleanTakesTargetsAsRunDoes() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.workflow)
        #expect(try await cli.run(["run"]).status == 0)
        let result = try await cli.run(["clean", "hello.txt"])
        #expect(result.status == 0, "\(result.output)")
        #expect(!ran(cli, "hello.txt"))
        #expect(ran(cli, "config.yml"), "an output of another job was deleted")
    }

    @Test func graphTakesTargetsAsRunDoes() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.workflow)
        let result = try await cli.run(["graph", "--format", "json", "hello.txt"])
        #expect(result.status == 0, "\(result.output)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let names = (object?["jobs"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["hello"], "\(result.stdout)")
    }

    @Test func checkTakesTheFileWithDashFOrAsItsArgument() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("other.yml", "jobs:\n  a: true\n  b: true\n  c: true\n")
        for arguments in [["check", "-f", "other.yml"], ["check", "other.yml"]] {
            let result = try await cli.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.output)")
            #expect(result.stdout.contains("other.yml: 3 jobs"), "\(arguments): \(result.output)")
        }
        let twice = try await cli.run(["check", "-f", "other.yml", "other.yml"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("two workflow files"), "\(twice.output)")
    }
}
