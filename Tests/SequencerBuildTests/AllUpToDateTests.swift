import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import SequencerWorkflowFile
import Testing

/// `UpToDate.allUpToDate()`, the pass that decides every job before any starts, against the
/// checks made job by job (`isUpToDate(_:)`, as a run asks them): after each change to a
/// project that was built once, the pass says "all up to date" exactly when the job-by-job
/// checks would run nothing.
@Suite(.suiteTimeLimit) struct AllUpToDateTests {
    typealias Project = UpToDateTests.Project

    /// A change made to the project after its first build.
    struct Change: Sendable, CustomTestStringConvertible {
        let name: String
        /// The file's YAML after the change (`UpToDateTests.yaml` arguments).
        var yaml = AllUpToDateTests.yaml()
        var files: @Sendable (TemporaryDirectory) throws -> Void = { _ in }
        /// Whether the job-by-job checks run something afterwards.
        let runsSomething: Bool

        var testDescription: String { name }
    }

    static func yaml(run: String = "cp in.txt out.txt", env: String = "A: 1", need: String = "cat out.txt > after.txt") -> String {
        """
        env: { B: 2 }
        jobs:
          build:
            run: \(run)
            env: { \(env) }
            inputs: [in.txt, "src/*.h"]
            outputs: [out.txt]
          after:
            needs: [build]
            run: \(need)
            outputs: [after.txt, logs/after.log]
          last:
            needs: [after, build]
            run: cat after.txt > last.txt
            outputs: [last.txt]
        """
    }

    static let changes: [Change] = [
        Change(name: "nothing", runsSomething: false),
        Change(name: "an input touched, not changed", files: { directory in
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: directory.file("in.txt"))
        }, runsSomething: false),
        Change(name: "an input's content", files: { try $0.write("in.txt", "two\n") }, runsSomething: true),
        Change(name: "a glob input gains a file", files: { try $0.write("src/b.h", "b\n") }, runsSomething: true),
        Change(name: "a glob input's file changes", files: { try $0.write("src/a.h", "changed\n") }, runsSomething: true),
        Change(name: "an input removed", files: { try FileManager.default.removeItem(atPath: $0.file("in.txt")) }, runsSomething: true),
        Change(name: "the command", yaml: yaml(run: "cp -p in.txt out.txt"), runsSomething: true),
        Change(name: "the environment", yaml: yaml(env: "A: 2"), runsSomething: true),
        Change(name: "a needed job's command (the last job only)", yaml: yaml(need: "cat out.txt >> after.txt"), runsSomething: true),
        Change(name: "an output missing", files: { try FileManager.default.removeItem(atPath: $0.file("logs/after.log")) }, runsSomething: true),
        Change(name: "an output rewritten", files: { try $0.write("last.txt", "by hand, later\n") }, runsSomething: true),
    ]

    /// One project, built once, then changed.
    static func built(_ change: Change) async throws -> Project {
        let project = try Project()
        try project.directory.write("in.txt", "one\n")
        try project.directory.makeDirectory("src")
        try project.directory.write("src/a.h", "a\n")
        try project.directory.makeDirectory("logs")
        _ = try await project.pass(yaml())
        #expect(try await project.pass(yaml()).isEmpty, "the second pass runs nothing")
        try change.files(project.directory)
        return project
    }

    @Test(arguments: changes) func thePassAgreesWithTheChecksMadeJobByJob(_ change: Change) async throws {
        let project = try await Self.built(change)
        let names = try project.allUpToDate(change.yaml)
        let ran = try await project.pass(change.yaml)
        #expect((names == nil) == change.runsSomething, "pass: \(names.map { "\($0)" } ?? "nil"), checks ran \(ran)")
        #expect(ran.isEmpty == !change.runsSomething, "\(ran)")
        if let names {
            // Every job, each after the jobs it needs (the order a run adds them in).
            #expect(names == ["build", "after", "last"])
        }
    }

    @Test func forceOrAJobWithoutOutputsOrWithoutARecordIsNeverAllUpToDate() async throws {
        let project = try await Self.built(Change(name: "nothing", runsSomething: false))
        #expect(try project.allUpToDate(Self.yaml(), force: true) == nil)
        let withStamp = Self.yaml() + "\n  stamp:\n    run: date\n"
        #expect(try project.allUpToDate(withStamp) == nil, "a job without outputs always runs")
        let withNew = Self.yaml() + "\n  new:\n    run: touch new.txt\n    outputs: [new.txt]\n"
        #expect(try project.allUpToDate(withNew) == nil, "a job never run has no record")
    }

    @Test func jobsAreOrderedAfterTheirNeedsWhateverTheFileOrder() async throws {
        let project = try Project()
        let yaml = """
            jobs:
              c:
                needs: [b, a]
                run: touch c.txt
                outputs: [c.txt]
              b:
                needs: [a]
                run: touch b.txt
                outputs: [b.txt]
              a:
                run: touch a.txt
                outputs: [a.txt]
            """
        // Built from the same jobs in needs-first order (the helper's pass goes in file order).
        _ = try await project.pass("""
            jobs:
              a:
                run: touch a.txt
                outputs: [a.txt]
              b:
                needs: [a]
                run: touch b.txt
                outputs: [b.txt]
              c:
                needs: [b, a]
                run: touch c.txt
                outputs: [c.txt]
            """)
        let file = try WorkflowFile.parse(yaml, path: project.directory.file("sequencer.yml"))
        let expected = ShellWorkflow.needsFirst(file.jobs).map(\.name)
        #expect(try project.allUpToDate(yaml) == expected)
        #expect(expected == ["a", "b", "c"])
    }
}

extension UpToDateTests.Project {
    /// What `allUpToDate()` says of `yaml` with the journal as it is: the names of the jobs,
    /// or nil when one is not up to date.
    func allUpToDate(_ yaml: String, force: Bool = false) throws -> [String]? {
        let file = try WorkflowFile.parse(yaml, path: directory.file("sequencer.yml"))
        let recorder = try journal.beginRun(workflow: "w")
        defer { recorder.close() }
        let check = UpToDate(
            file: file, stored: try journal.fingerprints(workflow: "w"), hasher: FileHasher(), expansions: PatternExpansions(),
            recorder: recorder, force: force, explain: { _, reason in Issue.record("the pass explains nothing: \(reason)") })
        return check.allUpToDate()
    }
}
