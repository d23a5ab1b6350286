import Foundation
import Sequencer
import SequencerQueue
import Testing

/// `RunStore.cancelRun(_:now:)` and `deleteRuns(keeping:workflow:)` on both stores.
@Suite(.serialized) struct ContractRunEndTests {
    /// Cancelling a run counts the jobs it cancelled: the jobs that an earlier cancel skipped
    /// are passed by, not counted.
    @Test(arguments: StoreKind.testable)
    func cancellingARunCountsOnlyTheJobsItCancelled(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (run, ids) = try await steps.createRun([("a", Steps.job()), ("b", Contract.after(0)), ("c", Contract.after(1))])
            #expect(try await store.cancelRun(run, now: 20) == 1)
            let states = try await ids.asyncMap { try await steps.state($0) }
            #expect(states == [.cancelled, .skipped, .skipped])
            let stored = try #require(try await store.run(run))
            #expect(stored.state == .cancelled && stored.cancelledAt == 20 && stored.endedAt == 20)
        }
    }

    /// A second cancel of a run keeps the first one's time and cancels nothing more.
    @Test(arguments: StoreKind.testable)
    func cancellingARunTwiceKeepsTheFirstTime(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (run, _) = try await steps.createRun([("a", Steps.job()), ("b", Steps.job())])
            #expect(try await store.cancelRun(run, now: 10) == 2)
            #expect(try await store.cancelRun(run, now: 20) == 0)
            #expect(try await store.run(run)?.cancelledAt == 10)
        }
    }

    /// Cancelling a run that ended cancels none of its jobs; the run is marked.
    @Test(arguments: StoreKind.testable)
    func cancellingAnEndedRunCancelsNoJob(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let run = try await steps.oneJobRun(ending: .succeeded(Data()), at: 5)
            #expect(try await store.cancelRun(run, now: 10) == 0)
            let stored = try #require(try await store.run(run))
            #expect(stored.counts == [.succeeded: 1] && stored.cancelledAt == 10 && stored.endedAt == 5)
        }
    }

    /// Cancelling a run leaves other runs' jobs and plain jobs alone, even those its jobs need.
    @Test(arguments: StoreKind.testable)
    func cancellingARunLeavesEveryOtherJobAlone(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let plain = try await steps.enqueue(Steps.job())
            let (other, _) = try await steps.createRun("other", [("x", Steps.job())])
            let (run, ids) = try await steps.createRun([("a", Steps.job(needs: [plain]))])
            #expect(try await store.cancelRun(run, now: 10) == 1)
            #expect(try await steps.state(ids[0]) == .cancelled)
            #expect(try await steps.state(plain) == .available)
            #expect(try await store.run(other)?.state == .running)
        }
    }

    /// Deleting runs keeps the newest `keeping` of each workflow, and returns the deleted runs,
    /// newest first, as they were.
    @Test(arguments: StoreKind.testable)
    func deletingRunsKeepsTheNewestOfEachWorkflow(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            var runs: [String: [QueueRunID]] = [:]
            for (index, workflow) in ["a", "b", "a", "a", "b"].enumerated() {
                let outcome: AttemptEnd.Outcome = index == 0 ? Contract.failure() : .succeeded(Data())
                runs[workflow, default: []].append(try await steps.oneJobRun(workflow, ending: outcome, at: Int64(index)))
            }
            let (a, b) = (try #require(runs["a"]), try #require(runs["b"]))
            let deleted = try await store.deleteRuns(keeping: 1, workflow: nil)
            #expect(deleted.map(\.id) == [a[1], b[0], a[0]])
            #expect(deleted.map(\.state) == [.succeeded, .succeeded, .failed] && deleted.map(\.workflow) == ["a", "b", "a"])
            #expect(try await store.runs(workflow: nil, limit: nil).map(\.id) == [b[1], a[2]])
            #expect(try await store.deleteRuns(keeping: 1, workflow: nil).isEmpty)
        }
    }

    /// Deleting the runs of one workflow leaves the others'.
    @Test(arguments: StoreKind.testable)
    func deletingTheRunsOfOneWorkflowLeavesTheOthers(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let a = try await steps.oneJobRun("a", ending: .succeeded(Data()))
            let b = try await steps.oneJobRun("b", ending: .succeeded(Data()))
            #expect(try await store.deleteRuns(keeping: 0, workflow: "a").map(\.id) == [a])
            #expect(try await store.runs(workflow: nil, limit: nil).map(\.id) == [b])
            #expect(try await store.workflows() == ["b"])
        }
    }

    /// A running run is never deleted, however old.
    @Test(arguments: StoreKind.testable)
    func aRunningRunIsNeverDeletedHoweverOld(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let old = try await steps.oneJobRun(ending: nil, at: 0)
            let job = try await steps.claimOne(at: 1)
            let newer = try await steps.oneJobRun(ending: .succeeded(Data()), at: 2)
            #expect(try await store.deleteRuns(keeping: 0, workflow: nil).map(\.id) == [newer])
            #expect(try await store.run(old)?.state == .running)
            #expect(try await steps.succeed(job, at: 3))
            #expect(try await store.deleteRuns(keeping: 0, workflow: "w").map(\.id) == [old])
        }
    }

    /// A deleted run takes its jobs and its attempts' log with it.
    @Test(arguments: StoreKind.testable)
    func aDeletedRunTakesItsJobsAndAttemptsWithIt(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (run, ids) = try await steps.createRun([("a", Steps.job()), ("b", Contract.after(0))])
            let a = try await steps.claimOne()
            #expect(try await steps.fail(a, at: 5))
            try await store.recordAttempt(Contract.attempt(ids[0], output: "log"))
            let kept = try await steps.oneJobRun("kept", ending: .succeeded(Data()), at: 6)
            #expect(try await store.deleteRuns(keeping: 0, workflow: "w").map(\.id) == [run])
            #expect(try await store.run(run) == nil)
            #expect(try await store.jobs(of: run).isEmpty)
            #expect(try await store.attempts(of: run).isEmpty)
            #expect(try await steps.store.job(ids[0]) == nil)
            #expect(try await steps.store.job(ids[1]) == nil)
            #expect(try await store.output(of: ids[0], attempt: nil) == nil)
            #expect(try await store.runCount(workflow: nil) == 1)
            #expect(try await store.run(kept)?.state == .succeeded)
            #expect(try await store.counts() == [.succeeded: 1])
        }
    }
}
