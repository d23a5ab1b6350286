import Foundation
import Sequencer
import SequencerHistory
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A journal's runs in the history's words: the list and the run read whole count alike, and
/// up-to-date jobs are not among the skipped.
@Suite(.suiteTimeLimit) struct JournalHistoryTests {
    struct Broken: Error {}

    @Test func aJournalsRunCountsEachStateOnceAndListsAsItReads() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("journal.sqlite")
        let journal = try SQLiteJournal(path: path)
        var workflow = Workflow()
        try workflow.add("fresh") { context in context.markUpToDate() }
        try workflow.add("built") { _ in }
        try workflow.add("broken") { _ in throw Broken() }
        try workflow.add("after", needs: ["broken"]) { _ in }
        var options = RunOptions(recorder: try journal.beginRun(workflow: "/src/app/sequencer.yml"))
        options.keepGoing = true
        let report = await (try workflow.start(options)).report()
        #expect(report.status == .failed)

        let history = JournalHistory(path: path)
        let record = try #require(try await history.run(1))
        let states = Dictionary(uniqueKeysWithValues: record.jobs.map { ($0.name, $0.state) })
        #expect(states == ["fresh": .upToDate, "built": .succeeded, "broken": .failed, "after": .skipped])
        #expect(record.run.counts == JobCounts(jobs: 4, succeeded: 1, upToDate: 1, failed: 1, timedOut: 0, cancelled: 0, skipped: 1, retried: 0))
        #expect(record.run.state == .failed && record.run.counts.failures == 1 && record.run.origin == nil)
        #expect(record.workflowFile == "/src/app/sequencer.yml" && record.names.sorted() == ["after", "broken", "built", "fresh"])

        let page = try await history.runs(RunQuery(workflow: history.workflow(ofFile: "/src/app/sequencer.yml"), limit: 5))
        #expect(page.runs == [record.run] && page.total == 1 && page.older == nil && page.workflows == ["/src/app/sequencer.yml"])
        #expect(try await history.jobs(of: 1).map(\.state).sorted { $0.rawValue < $1.rawValue } == record.jobs.map(\.state).sorted { $0.rawValue < $1.rawValue })
        let missing = try await history.run(2)
        #expect(missing == nil)
    }

    /// A journal that no run has created has no runs, and reading it creates nothing.
    @Test func aJournalNotYetCreatedHasNoRunsAndStaysUncreated() async throws {
        let directory = try TemporaryDirectory()
        let history = JournalHistory(path: directory.file("journal.sqlite"))
        let page = try await history.runs(RunQuery(limit: 10))
        #expect(page.runs.isEmpty && page.total == 0)
        let (run, version) = (try await history.run(1), try await history.version())
        #expect(run == nil && version == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.file("journal.sqlite")))
    }
}
