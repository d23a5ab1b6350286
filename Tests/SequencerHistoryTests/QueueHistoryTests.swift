import Foundation
import SequencerHistory
import SequencerQueue
import SequencerTestHelpers
import SequencerTestSupport
import Testing
import SequencerQueueSQLite

/// A queue's runs in the history's words: the list and the run read whole count alike.
@Suite(.suiteTimeLimit) struct QueueHistoryTests {
    @Test func aQueuesRunCountsAsItsJobsEndedAndListsAsItReads() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteQueueStore(path: directory.file("queue.sqlite"))
        let names = ["fresh", "built", "slow", "broken", "after", "waiting"]
        var jobs = names.map { (name: $0, job: NewDurableJob(kind: "k", input: Data("{}".utf8), runAt: 0)) }
        jobs[4].job.needsInBatch = [3]
        jobs[5].job.runAt = Int64.max / 2
        let (run, ids) = try await store.createRun(NewQueueRun(workflow: "w", origin: "elsewhere:/w/sequencer.yml"), jobs: jobs, now: 0)
        let claimed = try await store.claim(kinds: ["k"], limit: 10, slots: 10, owner: "w1", now: 10, leaseUntil: 10_000)
        #expect(claimed.count == 4)
        for job in claimed {
            let outcome: AttemptEnd.Outcome = switch job.id {
            case ids[2]: .failed(code: "timedOut", message: "timed out after 1s", retryAt: nil)
            case ids[3]: .failed(code: "exit", message: "exit code 3", retryAt: nil)
            default: .succeeded(Data("{}".utf8))
            }
            #expect(try await store.finish([AttemptEnd(id: job.id, attempt: job.attempt, owner: "w1", outcome: outcome)], now: 20) == [true])
            let summary = job.id == ids[0] ? "up to date" : "exit code 0"
            try await store.recordAttempt(QueueAttempt(
                job: job.id, attempt: job.attempt, worker: "w1", startedAt: 10, endedAt: 20,
                outcome: job.id == ids[0] ? QueueHistory.upToDateOutcome : "succeeded", exitCode: nil, signal: nil, summary: summary, output: nil))
        }

        let history = QueueHistory(store: store, location: "queue.sqlite")
        let record = try #require(try await history.run(run.rawValue))
        #expect(record.jobs.map(\.state) == [.upToDate, .succeeded, .timedOut, .failed, .skipped, .pending])
        #expect(record.jobs.map(\.name) == names && record.names == names)
        let expected = JobCounts(jobs: 6, succeeded: 1, upToDate: 1, failed: 1, timedOut: 1, cancelled: 0, skipped: 1, retried: 0)
        #expect(record.run.counts == expected)
        #expect(record.run.state == .running && record.run.counts.unfinished == 1 && record.run.counts.failures == 2)
        #expect(record.run.origin == "elsewhere:/w/sequencer.yml" && record.workflowFile == nil)
        // The check that found the first job up to date is no attempt: nothing ran.
        #expect(record.run.startedAt == 0 && record.attempts.map(\.worker) == ["w1", "w1", "w1"])
        #expect(!record.attempts.contains { $0.job == names[0] })

        // The list counts as the run read whole does (but for retries, which only it counts).
        var listed = try #require(try await history.runs(RunQuery(workflow: "w", limit: 5)).runs.first)
        #expect(listed.counts.retried == nil)
        listed.counts.retried = 0
        #expect(listed == record.run)
        #expect(try await history.jobs(of: run.rawValue) == record.jobs)
        #expect(history.workflow(ofFile: "/src/app/sequencer.yml") == "app")
    }
}
