import Foundation
import Sequencer
import SequencerQueue
import Testing
import SequencerHistory
import SequencerQueueSQLite

/// Runs kept in a store (`RunStore`), as call sequences with explicit times, on SQLite and on
/// PostgreSQL.
@Suite struct BothStoresRunTests {
    /// a; b and c need a.
    static func graph() -> [(name: String, job: NewDurableJob)] {
        var b = Steps.job()
        b.needsInBatch = [0]
        var c = Steps.job()
        c.needsInBatch = [0]
        return [("a", Steps.job()), ("b", b), ("c", c)]
    }

    @Test(arguments: StoreKind.testable)
    func aRunsStateFollowsItsJobsAndItsAttemptsAreLogged(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any RunStore)
            let (run, ids) = try await store.createRun(NewQueueRun(workflow: "build", origin: "host:/src/sequencer.yml", info: "{}"), jobs: Self.graph(), now: 10)
            #expect(ids.count == 3)
            #expect(try await store.jobs(of: run).map(\.name) == ["a", "b", "c"])
            var stored = try #require(try await store.run(run))
            #expect(stored.state == .running && stored.endedAt == nil && stored.counts == [.available: 1, .waiting: 2])

            let a = try #require(try await steps.claim(at: 20).first)
            #expect(try await steps.succeed(a, at: 30))
            try await store.recordAttempt(
                QueueAttempt(job: a.id, attempt: 1, worker: "w1", startedAt: 20, endedAt: 30, outcome: "succeeded", exitCode: 0, signal: nil,
                             summary: "exit 0", output: Data("built a\n".utf8)))
            let rest = try await steps.claim(at: 40)
            #expect(Set(rest.map(\.id)) == [ids[1], ids[2]])
            for job in rest {
                if job.id == ids[1] { #expect(try await steps.succeed(job, at: 50)) } else { #expect(try await steps.fail(job, at: 60)) }
            }
            stored = try #require(try await store.run(run))
            #expect(stored.state == .failed && stored.endedAt == 60)
            #expect(try await store.attempts(of: run).map(\.summary) == ["exit 0"])
            #expect(try await store.output(of: a.id, attempt: nil) == Data("built a\n".utf8))
            #expect(try await store.output(of: a.id, attempt: 2) == nil)
            #expect(try await store.runs(workflow: "build", limit: nil).map(\.id) == [run])
            #expect(try await store.runs(workflow: "other", limit: nil).isEmpty)
        }
    }

    /// A run's counts tell, among its failed jobs, those that timed out, and among its
    /// succeeded jobs, those a worker found up to date: both stores count them alike, in the
    /// statement that counts the rest (the history's one definition of each count).
    @Test(arguments: StoreKind.testable)
    func aRunCountsItsTimedOutAndUpToDateJobs(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any RunStore)
            let jobs = ["fresh", "built", "slow", "broken"].map { (name: $0, job: Steps.job()) }
            let (run, ids) = try await store.createRun(NewQueueRun(workflow: "w", origin: "o"), jobs: jobs, now: 0)
            let claimed = try await steps.claim(at: 10)
            #expect(claimed.count == 4)
            for job in claimed {
                switch job.id {
                case ids[0], ids[1]: #expect(try await steps.succeed(job, at: 20))
                case ids[2]: #expect(try await steps.end(job, .failed(code: "timedOut", message: "timed out after 1s", retryAt: nil), at: 30))
                default: #expect(try await steps.fail(job, at: 40))
                }
            }
            for (index, outcome) in [(0, "upToDate"), (1, "succeeded")] {
                try await store.recordAttempt(
                    QueueAttempt(job: ids[index], attempt: 1, worker: "w1", startedAt: 10, endedAt: 20, outcome: outcome, exitCode: nil,
                                 signal: nil, summary: outcome, output: nil))
            }
            let stored = try #require(try await store.run(run))
            #expect(stored.counts == [.succeeded: 2, .failed: 2])
            #expect(stored.upToDate == 1 && stored.timedOut == 1)
            #expect(try await store.runs(workflow: "w", limit: nil).map { [$0.upToDate, $0.timedOut] } == [[1, 1]])
        }
    }

    /// Pages of runs by ID (the web page's "Older »"), counted and filtered by workflow.
    @Test(arguments: StoreKind.testable)
    func runsComeInPagesOlderThanAGivenRun(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any RunStore)
            var ids: [QueueRunID] = []
            for number in 0..<7 {
                let workflow = number % 2 == 0 ? "even" : "odd"
                ids.append(try await store.createRun(NewQueueRun(workflow: workflow, origin: "o"), jobs: [("a", Steps.job())], now: Int64(number)).0)
            }
            let first = try await store.runs(workflow: nil, before: nil, limit: 3)
            #expect(first.map(\.id) == [ids[6], ids[5], ids[4]])
            let second = try await store.runs(workflow: nil, before: first.last?.id, limit: 3)
            #expect(second.map(\.id) == [ids[3], ids[2], ids[1]])
            #expect(try await store.runs(workflow: nil, before: ids[1], limit: 3).map(\.id) == [ids[0]])
            #expect(try await store.runs(workflow: "even", before: ids[4], limit: nil).map(\.id) == [ids[2], ids[0]])
            #expect(try await store.runCount(workflow: nil) == 7)
            #expect(try await store.runCount(workflow: "odd") == 3)
            #expect(try await store.runCount(workflow: "none") == 0)
            #expect(try await store.workflows() == ["even", "odd"])
        }
    }

    @Test(arguments: StoreKind.testable)
    func aNameGivenTwiceAddsNothing(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any RunStore)
            let twice = [("a", Steps.job()), ("a", Steps.job())]
            let error = await #expect(throws: QueueError.self) {
                try await store.createRun(NewQueueRun(workflow: "w", origin: "o"), jobs: twice, now: 0)
            }
            #expect(error?.code == .invalidOption)
            #expect(try await store.counts().isEmpty)
            #expect(try await store.runs(workflow: nil, limit: nil).isEmpty)
        }
    }

    @Test(arguments: StoreKind.testable)
    func cancellingARunEndsItsWaitingJobsAndMarksItsRunningOnes(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any RunStore)
            let (run, ids) = try await store.createRun(NewQueueRun(workflow: "w", origin: "o"), jobs: Self.graph(), now: 0)
            let a = try #require(try await steps.claim(at: 1).first)
            // a runs: it is marked; b and c wait for it and are cancelled.
            #expect(try await store.cancelRun(run, now: 2) == 3)
            #expect(try await steps.state(ids[1]) == .cancelled)
            #expect(try await steps.state(ids[2]) == .cancelled)
            #expect(try await store.heartbeat(owner: "w1", jobs: [a.id], leaseUntil: 100, now: 3) == [a.id])
            #expect(try await store.run(run)?.state == .running)
            _ = try await store.finish([AttemptEnd(id: a.id, attempt: 1, owner: "w1", outcome: .cancelled)], now: 4)
            #expect(try await store.run(run)?.state == .cancelled)
        }
    }

    @Test(arguments: StoreKind.testable)
    func deletingRunsKeepsTheNewestAndRunningOnesAndPruningLeavesRunJobs(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any RunStore)
            var runs: [QueueRunID] = []
            for round in 0..<3 {
                let (run, _) = try await store.createRun(NewQueueRun(workflow: "w", origin: "o"), jobs: [("only", Steps.job())], now: Int64(round))
                runs.append(run)
                if round < 2, let job = try await steps.claim(at: Int64(round)).first { #expect(try await steps.succeed(job, at: Int64(round))) }
            }
            let plain = try await steps.enqueue(Steps.job("plain"))
            let job = try #require(try await steps.claim(kinds: ["plain"], at: 5).first)
            #expect(job.id == plain)
            #expect(try await steps.succeed(job, at: 5))
            // Pruning takes the plain job only.
            #expect(try await store.prune(endedBefore: 1_000, includingFailures: true) == 1)
            #expect(try await store.jobs(of: runs[0]).count == 1)
            // Keeping 2 of 3: the oldest goes. Keeping 0: the running one stays.
            #expect(try await store.deleteRuns(keeping: 2, workflow: nil).map(\.id) == [runs[0]])
            #expect(try await store.deleteRuns(keeping: 0, workflow: nil).map(\.id) == [runs[1]])
            #expect(try await store.runs(workflow: nil, limit: nil).map(\.id) == [runs[2]])
            #expect(try await store.counts() == [.available: 1])
            if let sqlite = store as? SQLiteQueueStore { #expect(try sqlite.integrityProblems().isEmpty) }
        }
    }

    @Test(arguments: StoreKind.testable)
    func aWorkflowsFingerprintsAreKeptPerJobAndReplaced(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try #require(steps.store as? any RunStore)
            #expect(try await store.fingerprints(workflow: "app").isEmpty)
            let first = Fingerprint(fingerprint: "f1", parts: ["command": "c1", "input:a.c": "h1"], outputs: ["a.o": "s1"])
            try await store.recordFingerprint(first, workflow: "app", job: "compile", now: 1)
            try await store.recordFingerprint(first, workflow: "other", job: "compile", now: 1)
            let second = Fingerprint(fingerprint: "f2", parts: ["command": "c2"], outputs: [:])
            try await store.recordFingerprint(second, workflow: "app", job: "compile", now: 2)
            #expect(try await store.fingerprints(workflow: "app") == ["compile": second])
            #expect(try await store.fingerprints(workflow: "other") == ["compile": first])
            // A job's check reads its own and its needs' fingerprints only.
            try await store.recordFingerprint(first, workflow: "app", job: "link \"all\"", now: 3)
            try await store.recordFingerprint(first, workflow: "app", job: "test", now: 3)
            #expect(try await store.fingerprints(workflow: "app", jobs: ["link \"all\"", "compile", "missing"]) == ["compile": second, "link \"all\"": first])
            #expect(try await store.fingerprints(workflow: "app", jobs: []) == [:])
        }
    }
}
