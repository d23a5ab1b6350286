import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import SequencerWorkflowFile
import Testing

/// The up-to-date checks, run against a real journal in a temporary directory: each pass is one
/// run that asks every job of the file, in file order, whether it is up to date, and "runs" the
/// ones that are not by writing their outputs.
@Suite(.suiteTimeLimit) struct UpToDateTests {
    /// One workflow file in a temporary directory, with its journal.
    final class Project: Sendable {
        let directory: TemporaryDirectory
        let journal: SQLiteJournal

        init() throws {
            directory = try TemporaryDirectory(prefix: "sequencer-build")
            journal = try SQLiteJournal(path: directory.file("journal.sqlite"))
        }

        /// The warnings of the passes so far, as `LINE:COLUMN: MESSAGE`.
        let warnings = Locked<[String]>([])

        /// The jobs that ran in one pass over `yaml`, with why each ran.
        /// - Parameter running: what each job that runs does besides writing its outputs.
        func pass(
            _ yaml: String, force: Bool = false, running: @escaping @Sendable (WorkflowFile.Job) throws -> Void = { _ in }
        ) async throws -> [String: String] {
            let file = try WorkflowFile.parse(yaml, path: directory.file("sequencer.yml"))
            let stored = try journal.fingerprints(workflow: "w")
            let recorder = try journal.beginRun(workflow: "w")
            let reasons = Locked<[String: String]>([:])
            let check = UpToDate(
                file: file, stored: stored, hasher: FileHasher(), expansions: PatternExpansions(), recorder: recorder,
                force: force, explain: { job, reason in reasons.withLock { $0[job] = reason } },
                warn: { [warnings] in let text = "\($0.location): \($0.message)"; warnings.withLock { $0.append(text) } })
            var workflow = Workflow()
            try workflow.add("pass") { [directory] _ in
                for job in file.jobs where !check.isUpToDate(job) {
                    for output in job.outputs { try directory.write(output, "made by \(job.name)\n") }
                    try running(job)
                    check.succeeded(job)
                }
            }
            let report = try await workflow.start(RunOptions(recorder: recorder)).report()
            #expect(report.status == .succeeded)
            #expect(recorder.writeError == nil)
            return reasons.withLock { $0 }
        }
    }

    static func yaml(run: String = "cp in.txt out.txt", env: String = "A: 1", outputs: String = "[out.txt]") -> String {
        """
        jobs:
          build:
            run: \(run)
            env: { \(env) }
            inputs: [in.txt]
            outputs: \(outputs)
          after:
            needs: [build]
            run: cat out.txt > after.txt
            outputs: [after.txt]
        """
    }

    @Test func aJobRunsOnceAndIsThenUpToDate() async throws {
        let project = try Project()
        try project.directory.write("in.txt", "one\n")
        let first = try await project.pass(Self.yaml())
        #expect(first == ["build": "no earlier success is recorded", "after": "no earlier success is recorded"])
        #expect(try await project.pass(Self.yaml()).isEmpty)
    }

    @Test func changingTheCommandRunsTheJobAndTheJobsThatNeedIt() async throws {
        let project = try Project()
        try project.directory.write("in.txt", "one\n")
        _ = try await project.pass(Self.yaml())
        let reasons = try await project.pass(Self.yaml(run: "cp -p in.txt out.txt"))
        #expect(reasons == ["build": "its command changed", "after": "needed job 'build' changed"])
    }

    @Test func changingTheEnvironmentRunsTheJob() async throws {
        let project = try Project()
        try project.directory.write("in.txt", "one\n")
        _ = try await project.pass(Self.yaml())
        let reasons = try await project.pass(Self.yaml(env: "A: 2"))
        #expect(reasons["build"] == "its environment changed")
    }

    @Test func changingAnInputsContentRunsTheJob() async throws {
        let project = try Project()
        try project.directory.write("in.txt", "one\n")
        _ = try await project.pass(Self.yaml())
        try project.directory.write("in.txt", "two\n")
        #expect(try await project.pass(Self.yaml())["build"] == "input in.txt changed")
    }

    @Test func touchingAnInputWithoutChangingItLeavesTheJobUpToDate() async throws {
        let project = try Project()
        try project.directory.write("in.txt", "one\n")
        _ = try await project.pass(Self.yaml())
        let later = Date(timeIntervalSinceNow: 3600)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: project.directory.file("in.txt"))
        #expect(try await project.pass(Self.yaml()).isEmpty)
    }

    @Test func aMissingOrChangedOutputRunsTheJob() async throws {
        let project = try Project()
        try project.directory.write("in.txt", "one\n")
        _ = try await project.pass(Self.yaml())
        try FileManager.default.removeItem(atPath: project.directory.file("out.txt"))
        #expect(try await project.pass(Self.yaml())["build"] == "output out.txt is missing")
        try project.directory.write("out.txt", "edited by hand, a while later\n")
        #expect(try await project.pass(Self.yaml())["build"] == "output out.txt changed since its last success")
    }

    @Test func aJobWithoutOutputsAlwaysRunsAndForceRunsEverything() async throws {
        let project = try Project()
        try project.directory.write("in.txt", "one\n")
        _ = try await project.pass(Self.yaml(outputs: "[]"))
        let again = try await project.pass(Self.yaml(outputs: "[]"))
        #expect(again["build"] == "it declares no outputs, so it always runs")
        #expect(again["after"] == nil)
        let forced = try await project.pass(Self.yaml(outputs: "[]"), force: true)
        #expect(forced == ["build": "--force", "after": "--force"])
    }
}
