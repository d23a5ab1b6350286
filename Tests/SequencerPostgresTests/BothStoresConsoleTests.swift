import Foundation
import Sequencer
import SequencerQueue
import Testing

/// What the queue page reads and does (``QueueConsole``), as call sequences with explicit
/// times, on SQLite and on PostgreSQL: retrying and discarding one job from the state each
/// names, the jobs that ended by minute, the newest failures, and the log of actions.
@Suite struct BothStoresConsoleTests {
    /// A failed job retried runs once more, its attempts going on (its retry policy spent); a job
    /// in any other state, or whose key a live job took meanwhile, is refused and left as it was.
    @Test(arguments: StoreKind.testable)
    func onlyAFailedJobIsRetriedAndItRunsOnceMore(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any QueueConsole)
            let id = try await steps.enqueue(Steps.job(key: "report"), at: 0)
            #expect(try await store.retry(id, now: 1) == "job \(id) is available, not failed")
            let first = try #require(try await steps.claim(at: 10).first)
            #expect(try await steps.fail(first, at: 20))
            #expect(try await store.retry(DurableJobID(999), now: 30) == "there is no job #999")
            // A job of the same key, enqueued after the failure, holds the key while it lives.
            let other = try await steps.enqueue(Steps.job(key: "report"), at: 25)
            #expect(other != id)
            #expect(try await store.retry(id, now: 30) == "job \(id)'s key 'report' is held by live job \(other)")
            #expect(try await steps.state(id) == .failed)
            #expect(try await store.cancel(other, now: 35) == .cancelled)

            #expect(try await store.retry(id, now: 40) == nil)
            let retried = try #require(try await store.job(id))
            #expect(retried.state == .available)
            #expect(retried.error == nil && retried.errorCode == nil && retried.endedAt == nil)
            #expect(try await store.retry(id, now: 41) == "job \(id) is available, not failed", "retried once")
            let second = try #require(try await steps.claim(at: 50).first)
            #expect(second.id == id)
            #expect(second.attempt == first.attempt + 1, "the attempt log goes on")
            #expect(second.availableSince == 40, "it could run from the retry on")
            #expect(try await steps.succeed(second, at: 60))
            #expect(try await steps.state(id) == .succeeded)
            #expect(try await store.retry(id, now: 70) == "job \(id) is succeeded, not failed")
        }
    }

    /// An ended job that did not succeed is deleted when discarded; a live or succeeded one, or
    /// one of a run, is refused.
    @Test(arguments: StoreKind.testable)
    func anEndedJobThatDidNotSucceedIsDiscarded(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any QueueConsole)
            let runStore = try #require(steps.store as? any RunStore)
            let failing = try await steps.enqueue(Steps.job(), at: 0)
            let dependent = try await steps.enqueue(Steps.job(needs: [failing]), at: 0)
            #expect(try await store.discard(failing) == "job \(failing) is available: only a failed, cancelled or skipped job is discarded")
            let claimed = try #require(try await steps.claim(at: 10).first)
            #expect(try await steps.fail(claimed, at: 20))
            #expect(try await steps.state(dependent) == .skipped)
            #expect(try await store.discard(failing) == nil)
            #expect(try await store.job(failing) == nil)
            #expect(try await store.discard(failing) == "there is no job \(failing)")
            #expect(try await store.discard(dependent) == nil, "a skipped job is discarded too")

            let (run, ids) = try await runStore.createRun(NewQueueRun(workflow: "w", origin: "o"), jobs: [("a", Steps.job())], now: 30)
            #expect(try await store.cancel(ids[0], now: 31) == .cancelled)
            #expect(try await store.discard(ids[0]) == "job \(ids[0]) is a job of run #\(run): it stays with its run")
            #expect(try await store.job(ids[0])?.state == .cancelled)
        }
    }

    /// The jobs that ended, by minute from a time on, by end state; the newest failures first,
    /// a page at a time; the gauges read without their hold.
    @Test(arguments: StoreKind.testable)
    func endingsByMinuteAndTheNewestFailures(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any QueueConsole)
            var ids: [DurableJobID] = []
            for _ in 0..<5 { ids.append(try await steps.enqueue(Steps.job(), at: 0)) }
            let claimed = try await steps.claim(limit: 5, at: 1)
            #expect(claimed.count == 5)
            #expect(try await steps.succeed(claimed[0], at: 60_000 + 5))
            #expect(try await steps.fail(claimed[1], at: 60_000 + 10))
            #expect(try await steps.fail(claimed[2], at: 120_000 + 1))
            #expect(try await steps.succeed(claimed[3], at: 179_999))
            #expect(try await steps.fail(claimed[4], at: 30_000), "before the span asked for")
            let endings = try await store.endings(since: 60_000, bucket: 60_000)
            #expect(endings == [
                QueueEndings(start: 60_000, counts: [.succeeded: 1, .failed: 1]),
                QueueEndings(start: 120_000, counts: [.failed: 1, .succeeded: 1]),
            ])
            let failures = try await store.latestJobs(in: [.failed], before: nil, limit: 2)
            #expect(failures.map(\.id) == [claimed[4].id, claimed[2].id])
            #expect(failures.first?.error == "boom")
            let next = try await store.latestJobs(in: [.failed], before: failures.last?.id, limit: 2)
            #expect(next.map(\.id) == [claimed[1].id])

            // Read without the hold: a process holding the gauges keeps them.
            #expect(try await store.readGauges(reader: "a", now: 0, holdUntil: 500_000) != nil)
            _ = try await steps.enqueue(Steps.job("later", at: 900_000), at: 250_000)
            let gauges = try await store.gauges(now: 300_000)
            #expect(gauges.depth == [QueueGauges.Group(kind: "later", lane: ""): [.scheduled: 1]])
            #expect(try await store.readGauges(reader: "b", now: 300_000, holdUntil: 600_000) == nil)
        }
    }

    /// Every action, newest first, as recorded; workers' kinds and last beats, as they beat.
    @Test(arguments: StoreKind.testable)
    func actionsAndWorkersKindsAreKept(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any QueueConsole)
            let retry = QueueAction(at: 10, action: "retry", job: DurableJobID(4), who: "ops (Chrome)", address: "127.0.0.1:5000", result: "done")
            let enqueue = QueueAction(at: 20, action: "enqueue", job: nil, who: "ops", address: "[::1]:6000", result: "no such kind")
            try await store.record(retry)
            try await store.record(enqueue)
            #expect(try await store.actions(limit: 10) == [enqueue, retry])
            #expect(try await store.actions(limit: 1) == [enqueue])
            let other = try #require(try await steps.reopen() as? any QueueConsole)
            #expect(try await other.actions(limit: 10).count == 2, "another process reads them")

            try await store.beat(WorkerBeat(owner: "w", host: "h", pid: 1, startedAt: 0, holding: 0, aliveUntil: 30_000, kinds: ["mail", "fetch"]), now: 5)
            try await store.beat(WorkerBeat(owner: "w", host: "h", pid: 1, startedAt: 0, holding: 1, aliveUntil: 40_000, kinds: ["mail"]), now: 9)
            let workers = try await store.workers(now: 10)
            #expect(workers.map(\.kinds) == [["mail"]])
            #expect(workers.map(\.beatAt) == [9])
        }
    }
}
