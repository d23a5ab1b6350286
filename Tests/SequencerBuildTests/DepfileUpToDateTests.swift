import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import SequencerWorkflowFile
import Testing

/// Depfiles in the up-to-date checks: the files a job's depfile names after a success are its
/// inputs on the next run, kept in the journal; a depfile that cannot be read makes the job
/// run every time, with a warning at the `depfile` key.
@Suite(.suiteTimeLimit) struct DepfileUpToDateTests {
    typealias Project = UpToDateTests.Project

    static let yaml = """
        jobs:
          compile-${stem}:
            for: [main.c, util.c]
            run: cc -MD -c ${item}
            inputs: ["${item}"]
            outputs: ["${stem}.o"]
            depfile: ${stem}.d
          link:
            needs: [compile-*]
            run: cc *.o
            outputs: [app]
        """

    /// "Compiles" each job: writes a depfile naming its source and the headers `includes` lists for it.
    static func compile(_ project: Project, includes: [String: [String]]) -> @Sendable (WorkflowFile.Job) throws -> Void {
        { [directory = project.directory] job in
            guard let depfile = job.depfile?.path, let source = job.inputs.first else { return }
            let headers = includes[source] ?? []
            try directory.write(depfile, "\(job.outputs[0]): \(source) \\\n " + headers.joined(separator: " ") + "\n")
        }
    }

    private func sources(_ project: Project) throws {
        for name in ["main.c", "util.c", "common.h", "util.h", "main.h"] { try project.directory.write(name, "// \(name)\n") }
    }

    @Test func aHeaderEditRerunsExactlyTheJobsThatIncludeIt() async throws {
        let project = try Project()
        try sources(project)
        let compile = Self.compile(project, includes: ["main.c": ["common.h", "main.h"], "util.c": ["common.h", "util.h"]])
        #expect(try await project.pass(Self.yaml, running: compile).count == 3)
        #expect(try await project.pass(Self.yaml, running: compile).isEmpty)
        // The headers are kept in the journal with the fingerprint.
        let stored = try project.journal.fingerprints(workflow: "w")
        #expect(stored["compile-main"]?.parts.keys.filter { $0.hasPrefix("dep:") }.sorted() == ["dep:common.h", "dep:main.h"])

        try project.directory.write("util.h", "// edited\n")
        #expect(try await project.pass(Self.yaml, running: compile) == [
            "compile-util": "input util.h (from its depfile) changed", "link": "needed job 'compile-util' changed",
        ])
        try project.directory.write("common.h", "// edited\n")
        let both = try await project.pass(Self.yaml, running: compile)
        #expect(both["compile-main"] == "input common.h (from its depfile) changed" && both.count == 3)
        // Touched, not changed: content hashes, nothing runs.
        try project.directory.write("main.h", "// main.h\n")
        #expect(try await project.pass(Self.yaml, running: compile).isEmpty)
        #expect(project.warnings.withLock { $0 }.isEmpty)
    }

    /// The pass that decides every job before a run (the no-op run's) hashes the files the
    /// depfiles named, as the job-by-job checks do.
    @Test func theOnePassDecisionSeesDepfileHeaders() async throws {
        let project = try Project()
        try sources(project)
        let compile = Self.compile(project, includes: ["main.c": ["common.h", "main.h"], "util.c": ["util.h"]])
        _ = try await project.pass(Self.yaml, running: compile)
        func allUpToDate() throws -> [String]? {
            let file = try WorkflowFile.parse(Self.yaml, path: project.directory.file("sequencer.yml"))
            return UpToDate(
                file: file, stored: try project.journal.fingerprints(workflow: "w"), hasher: FileHasher(),
                expansions: PatternExpansions(), recorder: try project.journal.beginRun(workflow: "w"), force: false, explain: nil
            ).allUpToDate()
        }
        #expect(try allUpToDate() == ["compile-main", "compile-util", "link"])
        try project.directory.write("main.h", "// edited\n")
        #expect(try allUpToDate() == nil)
    }

    @Test func aNewIncludeIsFollowedFromTheRunAfterIt() async throws {
        let project = try Project()
        try sources(project)
        _ = try await project.pass(Self.yaml, running: Self.compile(project, includes: ["main.c": ["common.h"]]))
        // main.c now includes main.h too: it changed, so it runs, and its depfile says so.
        try project.directory.write("main.c", "#include \"main.h\"\n")
        let grown = Self.compile(project, includes: ["main.c": ["common.h", "main.h"]])
        #expect(try await project.pass(Self.yaml, running: grown)["compile-main"] == "input main.c changed")
        try project.directory.write("main.h", "// edited\n")
        #expect(try await project.pass(Self.yaml, running: grown)["compile-main"] == "input main.h (from its depfile) changed")
    }

    @Test func aMissingOrMalformedDepfileRunsTheJobEveryTimeWithAWarning() async throws {
        let project = try Project()
        try sources(project)
        let none: @Sendable (WorkflowFile.Job) throws -> Void = { _ in }
        _ = try await project.pass(Self.yaml, running: none)
        #expect(project.warnings.withLock { $0 } == [
            "7:14: job 'compile-main': its depfile main.d cannot be read: it was not written (check the command's -MF or -MD); it will run every time until this is mended",
            "7:14: job 'compile-util': its depfile util.d cannot be read: it was not written (check the command's -MF or -MD); it will run every time until this is mended",
        ])
        let again = try await project.pass(Self.yaml, running: none)
        #expect(again["compile-main"] == "its depfile could not be read after its last success")
        #expect(again["link"] == nil)  // the same fingerprints as the run before: link is up to date

        project.warnings.withLock { $0 = [] }
        let malformed: @Sendable (WorkflowFile.Job) throws -> Void = { [directory = project.directory] job in
            try directory.write(job.depfile?.path ?? "", "main.o: main.c\nno colon here\n")
        }
        _ = try await project.pass(Self.yaml, running: malformed)
        #expect(project.warnings.withLock { $0 }.first
            == "7:14: job 'compile-main': its depfile main.d cannot be read, line 2: expected 'TARGET: INPUTS', found no ':'; it will run every time until this is mended")
        // Mended: the next run records the headers, and the one after is up to date.
        let compile = Self.compile(project, includes: ["main.c": ["common.h"], "util.c": ["util.h"]])
        _ = try await project.pass(Self.yaml, running: compile)
        #expect(try await project.pass(Self.yaml, running: compile).isEmpty)
    }

    @Test func aHeaderThatIsGoneCountsAsChanged() async throws {
        let project = try Project()
        try sources(project)
        let compile = Self.compile(project, includes: ["main.c": ["common.h", "gone.h"], "util.c": ["util.h"]])
        _ = try await project.pass(Self.yaml, running: compile)
        #expect(project.warnings.withLock { $0 } == [
            "7:14: job 'compile-main': its depfile main.d names gone.h, which does not exist; it will run every time until this is mended",
        ])
        let again = try await project.pass(Self.yaml, running: compile)
        #expect(again["compile-main"] == "input gone.h (from its depfile) is missing")
        #expect(again["compile-util"] == nil)
    }
}
