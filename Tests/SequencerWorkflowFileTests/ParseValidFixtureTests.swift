import Sequencer
import Testing
@testable import SequencerWorkflowFile

/// Every file under `Fixtures/valid/` loads, and decodes to exactly the model written here.
@Suite struct ParseValidFixtureTests {
    /// What a job must decode to; every field is compared.
    struct ExpectedJob {
        var name: String
        var run: String
        var needs: [String] = []
        var lane: String? = nil
        var priority: Priority = .utility
        var timeout: Duration? = nil
        var retry: RetryPolicy = .none
        var environment: [String: String] = [:]
        var workingDirectory: String? = nil
        var inputs: [String] = []
        var outputs: [String] = []
    }

    private func load(_ name: String) throws -> WorkflowFile {
        do {
            return try WorkflowFile.load(path: Fixtures.path("valid", name))
        } catch {
            Issue.record("\(name) should load, but: \(error)")
            throw error
        }
    }

    private func check(_ file: WorkflowFile, jobs expected: [ExpectedJob],
                       sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(file.jobs.map(\.name) == expected.map(\.name), sourceLocation: sourceLocation)
        for (job, want) in zip(file.jobs, expected) {
            #expect(job.run == want.run, "run of \(want.name)", sourceLocation: sourceLocation)
            #expect(job.needs.map(\.name) == want.needs, "needs of \(want.name)", sourceLocation: sourceLocation)
            #expect(job.lane == want.lane, "lane of \(want.name)", sourceLocation: sourceLocation)
            #expect(job.priority == want.priority, "priority of \(want.name)", sourceLocation: sourceLocation)
            #expect(job.timeout == want.timeout, "timeout of \(want.name)", sourceLocation: sourceLocation)
            #expect(job.retry == want.retry, "retry of \(want.name)", sourceLocation: sourceLocation)
            #expect(job.environment == want.environment, "env of \(want.name)", sourceLocation: sourceLocation)
            #expect(job.workingDirectory == want.workingDirectory, "cwd of \(want.name)", sourceLocation: sourceLocation)
            #expect(job.inputs == want.inputs, "inputs of \(want.name)", sourceLocation: sourceLocation)
            #expect(job.outputs == want.outputs, "outputs of \(want.name)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyValidFixtureIsCheckedHere() {
        #expect(Fixtures.names(in: "valid") == [
            "01-minimal.yml", "02-design-example.yml", "03-every-key.yml", "04-flow-style.yml",
            "05-anchors-and-aliases.yml", "06-names-comments-block-scalars.yml", "07-bom-and-crlf.yml",
            "08-durations-and-priorities.yml", "09-templates-vars-includes.yml",
        ])
    }

    @Test func templatesVarsAndIncludes() throws {
        let file = try load("09-templates-vars-includes.yml")
        #expect(file.lanes.map(\.name) == ["cpu"])
        #expect(file.includes == [Fixtures.path("valid", "includes/common.yml")])
        check(file, jobs: [
            ExpectedJob(name: "prepare", run: "mkdir -p build"),
            ExpectedJob(name: "check-01-minimal", run: "yamllint 01-minimal.yml > build/01-minimal.lint", needs: ["prepare"],
                        lane: "cpu", inputs: ["01-minimal.yml"], outputs: ["build/01-minimal.lint"]),
            ExpectedJob(name: "check-03-every-key", run: "yamllint 03-every-key.yml > build/03-every-key.lint",
                        needs: ["prepare"], lane: "cpu", inputs: ["03-every-key.yml"], outputs: ["build/03-every-key.lint"]),
            ExpectedJob(name: "mode-debug", run: "echo debug -O2 -Wall $HOME ${HOME}"),
            ExpectedJob(name: "mode-release", run: "echo release -O2 -Wall $HOME ${HOME}"),
            ExpectedJob(name: "report", run: "cat build/*.lint",
                        needs: ["check-01-minimal", "check-03-every-key", "mode-debug", "mode-release"]),
        ])
        #expect(file.jobs[1].depfile?.path == "build/01-minimal.d")
        #expect(file.jobs[0].definedIn == Fixtures.path("valid", "includes/common.yml"))
        #expect(file.jobs[1].definedIn == file.path)
        #expect(file.warnings.isEmpty)
    }

    @Test func minimal() throws {
        let file = try load("01-minimal.yml")
        #expect(file.version == 1 && file.lanes.isEmpty && file.environment.isEmpty)
        #expect(file.path == Fixtures.path("valid", "01-minimal.yml"))
        #expect(file.directory == Fixtures.root.appendingPathComponent("valid").path)
        check(file, jobs: [ExpectedJob(name: "hello", run: "echo hello")])
        #expect(file.jobs[0].location == SourceLocation(line: 1, column: 8))
    }

    @Test func designExample() throws {
        let file = try load("02-design-example.yml")
        #expect(file.lanes == [WorkflowFile.Lane(name: "network", width: 2, ordered: true,
                                                 location: SourceLocation(line: 4, column: 3))])
        check(file, jobs: [
            ExpectedJob(name: "splash", run: "./scripts/splash.sh"),
            ExpectedJob(name: "fetch-config", run: "curl -sf https://example.invalid/config > config.json",
                        needs: ["splash"], lane: "network", priority: .userInitiated, timeout: .seconds(10),
                        retry: .exponential(attempts: 3, initial: .milliseconds(200)),
                        environment: ["API_KEY": "dev"], outputs: ["config.json"]),
            ExpectedJob(name: "whats-new", run: "./scripts/whats-new.sh", needs: ["fetch-config", "splash"],
                        inputs: ["notes/*.md"], outputs: ["build/whats-new.html"]),
        ])
        #expect(file.jobs[2].needs.map(\.location) == [SourceLocation(line: 18, column: 13), SourceLocation(line: 18, column: 27)])
    }

    @Test func everyKey() throws {
        let file = try load("03-every-key.yml")
        #expect(file.lanes.map { [$0.name, "\($0.width)", "\($0.ordered)"] } == [["network", "4", "false"], ["disk", "1", "true"]])
        #expect(file.environment == ["CI": "true", "LEVEL": "3", "EMPTY": ""])
        check(file, jobs: [
            ExpectedJob(name: "generate", run: "./gen.sh", priority: .background),
            ExpectedJob(name: "build", run: "make -j4", needs: ["generate"], lane: "disk", priority: .utility,
                        timeout: .seconds(5400),
                        retry: .exponential(attempts: 4, initial: .milliseconds(250), multiplier: 1.5, max: .seconds(10)),
                        environment: ["CC": "clang", "DEBUG": "false"], workingDirectory: "src",
                        inputs: ["src/*.c", "Makefile"], outputs: ["build/app"]),
            ExpectedJob(name: "upload", run: "./upload.sh build/app", needs: ["build"], lane: "network",
                        priority: .userInteractive, timeout: .seconds(45), retry: .exponential(attempts: 2)),
        ])
    }

    @Test func flowStyle() throws {
        let file = try load("04-flow-style.yml")
        #expect(file.lanes.map(\.name) == ["net"] && file.lanes[0].width == 2 && file.lanes[0].ordered)
        #expect(file.environment == ["A": "1"])
        check(file, jobs: [
            ExpectedJob(name: "a", run: "echo a", lane: "net"),
            ExpectedJob(name: "b", run: "echo b", needs: ["a"], timeout: .milliseconds(500),
                        retry: .exponential(attempts: 2, initial: .seconds(1), multiplier: 3, max: .seconds(60))),
            ExpectedJob(name: "c", run: "echo c"),
            ExpectedJob(name: "d", run: "echo d", needs: ["b", "c"], environment: ["B": "two"], inputs: ["x"], outputs: ["y"]),
        ])
    }

    @Test func anchorsAndAliases() throws {
        let file = try load("05-anchors-and-aliases.yml")
        let common = ["CI": "1", "LANG": "C"]
        let flaky = RetryPolicy.exponential(attempts: 3, initial: .seconds(1))
        check(file, jobs: [
            ExpectedJob(name: "lint", run: "./check.sh *.swift", timeout: .seconds(30), retry: flaky, environment: common),
            ExpectedJob(name: "test", run: "./check.sh *.swift", needs: ["lint"], timeout: .seconds(30), retry: flaky,
                        environment: common),
            ExpectedJob(name: "docs", run: "echo ** done, 2 * 3 = 6 [*] {*}", needs: ["lint"], inputs: ["*.md", "docs/*"]),
        ])
        // A need that comes through an alias is where the anchor's list has it.
        #expect(file.jobs[2].needs[0].location == SourceLocation(line: 15, column: 25))
    }

    @Test func namesCommentsAndBlockScalars() throws {
        let file = try load("06-names-comments-block-scalars.yml")
        check(file, jobs: [
            ExpectedJob(name: "build:release", run: "swift build -c release\necho \"built\"\n"),
            ExpectedJob(name: "test.unit", run: "swift test"),
            ExpectedJob(name: "2024", run: "echo year"),
            ExpectedJob(name: "deploy-😀", run: "./deploy.sh --fast\n", needs: ["build:release", "test.unit", "2024"]),
        ])
        #expect(file.jobs.map(\.location.line) == [7, 11, 12, 13])
    }

    @Test func byteOrderMarkAndWindowsLineEnds() throws {
        let file = try load("07-bom-and-crlf.yml")
        check(file, jobs: [
            ExpectedJob(name: "a", run: "echo a", timeout: .seconds(120)),
            ExpectedJob(name: "b", run: "echo b", needs: ["a"]),
        ])
        #expect(file.jobs[1].needs[0].location == SourceLocation(line: 7, column: 13))
    }

    @Test func durationsAndPriorities() throws {
        let file = try load("08-durations-and-priorities.yml")
        check(file, jobs: [
            ExpectedJob(name: "ns", run: "true", priority: .background, timeout: .nanoseconds(1500)),
            ExpectedJob(name: "us", run: "true", priority: .utility, timeout: .microseconds(250)),
            ExpectedJob(name: "micro", run: "true", priority: .userInitiated, timeout: .microseconds(3)),
            ExpectedJob(name: "ms", run: "true", priority: .userInteractive, timeout: .milliseconds(200)),
            ExpectedJob(name: "s", run: "true", timeout: .milliseconds(1500)),
            ExpectedJob(name: "m", run: "true", timeout: .seconds(120)),
            ExpectedJob(name: "h", run: "true", timeout: .seconds(3723) + .milliseconds(4)),
            ExpectedJob(name: "retry-once", run: "true", retry: .exponential(attempts: 1)),
        ])
    }
}
