import Foundation
import Sequencer
import SequencerQueue
import Testing

/// `RunStore.createRun(_:jobs:now:)`, `run(_:)` and `jobs(of:)` on both stores: what a run
/// keeps, the runs refused whole, and the run's state as its jobs go.
@Suite(.serialized) struct ContractRunTests {
    /// A run keeps its workflow, origin, notes and creation time; its jobs come in the order
    /// they were submitted, by name, with the IDs `createRun` returned.
    @Test(arguments: StoreKind.testable)
    func aRunKeepsWhatItWasCreatedWithAndItsJobsInOrder(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let jobs = [("zeta", Steps.job(priority: .background)), ("alpha", Steps.job()), ("mid", Contract.after(0, 1))]
            let (run, ids) = try await steps.createRun("build", jobs, origin: "host:/src/sequencer.yml", info: "{\"jobs\":3}", at: 1_234)
            let stored = try #require(try await store.run(run))
            #expect(stored.id == run && stored.workflow == "build" && stored.origin == "host:/src/sequencer.yml" && stored.info == "{\"jobs\":3}")
            #expect(stored.createdAt == 1_234 && stored.cancelledAt == nil && stored.endedAt == nil && stored.state == .running)
            #expect(stored.counts == [.available: 2, .waiting: 1] && stored.timedOut == 0 && stored.upToDate == 0)
            let listed = try await store.jobs(of: run)
            #expect(listed.map(\.name) == ["zeta", "alpha", "mid"] && listed.map(\.job.id) == ids)
            #expect(listed.map(\.job.priority) == [.background, .utility, .utility] && listed.allSatisfy { $0.job.enqueuedAt == 1_234 })
            let (bare, _) = try await steps.createRun("build", [("a", Steps.job())], at: 2_000)
            #expect(try await store.run(bare)?.info == nil)
        }
    }

    @Test(arguments: StoreKind.testable)
    func anUnknownRunIsNilWithNoJobsNoAttemptsAndNothingToCancel(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (run, _) = try await steps.createRun([("a", Steps.job())])
            let unknown = QueueRunID(run.rawValue + 100)
            #expect(try await store.run(unknown) == nil)
            #expect(try await store.jobs(of: unknown).isEmpty)
            #expect(try await store.attempts(of: unknown).isEmpty)
            #expect(try await store.cancelRun(unknown, now: 5) == 0)
            #expect(try await store.run(run)?.state == .running)
        }
    }

    /// A run of no jobs has nothing left to do: it succeeded, and ended as it was created.
    @Test(arguments: StoreKind.testable)
    func aRunOfNoJobsSucceededAsItWasCreated(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let (run, ids) = try await steps.createRun("empty", [], at: 77)
            let stored = try #require(try await steps.runStore().run(run))
            #expect(ids.isEmpty && stored.counts.isEmpty && stored.state == .succeeded && stored.endedAt == 77)
        }
    }

    /// A run refused for a job's need, lane or position adds no run and no job.
    @Test(arguments: StoreKind.testable)
    func aRefusedRunAddsNoRunAndNoJob(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let bad: [(QueueError.Code, NewDurableJob)] = [
                (.unknownNeed, Steps.job(needs: [DurableJobID(4_242)])), (.unknownLane, Steps.job(lane: "nowhere")), (.unknownNeed, Contract.after(1)),
            ]
            for (code, job) in bad {
                for key in [nil, "shared"] {
                    let error = await #expect(throws: QueueError.self) {
                        try await steps.createRun([("first", Steps.job(key: key)), ("bad", job)])
                    }
                    #expect(error?.code == code)
                }
            }
            #expect(try await store.runCount(workflow: nil) == 0)
            #expect(try await store.runs(workflow: nil, limit: nil).isEmpty)
            #expect(try await store.workflows().isEmpty)
            #expect(try await store.counts().isEmpty)
        }
    }

    /// A run's job may need a job outside the run: it waits for it.
    @Test(arguments: StoreKind.testable)
    func aRunsJobMayNeedAJobOutsideTheRun(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let outside = try await steps.enqueue(Steps.job("setup"))
            let (run, ids) = try await steps.createRun([("a", Steps.job(needs: [outside]))])
            #expect(try await steps.runStore().run(run)?.counts == [.waiting: 1])
            let setup = try #require(try await steps.claim(kinds: ["setup"]).first)
            #expect(try await steps.succeed(setup, at: 5))
            #expect(try await steps.claim(at: 5).map(\.id) == ids)
        }
    }

    /// A run's job given by the key of a live job outside any run is that job.
    @Test(arguments: StoreKind.testable)
    func aRunsJobWithTheKeyOfALivePlainJobIsThatJob(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let plain = try await steps.enqueue(Steps.job(key: "sync"))
            let (run, ids) = try await steps.createRun([("sync", Steps.job(key: "sync")), ("after", Contract.after(0))])
            #expect(ids[0] == plain)
            #expect(try await steps.runStore().jobs(of: run).map(\.job.id) == [plain, ids[1]])
            #expect(try await steps.store.counts() == [.available: 1, .waiting: 1])
        }
    }

    /// A key that a live job of another run holds cannot join a second run: the run is refused
    /// whole.
    @Test(arguments: StoreKind.testable)
    func aKeyHeldByAnotherRunsLiveJobRefusesTheRun(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (first, ids) = try await steps.createRun([("sync", Steps.job(key: "sync"))])
            let error = await #expect(throws: QueueError.self) {
                try await steps.createRun([("other", Steps.job()), ("sync", Steps.job(key: "sync"))])
            }
            #expect(error?.code == .invalidOption)
            #expect(try await store.runs(workflow: nil, limit: nil).map(\.id) == [first])
            #expect(try await store.counts() == [.available: 1])
            #expect(try await store.jobs(of: first).map(\.job.id) == ids)
        }
    }

    /// A run succeeds once every job did, and ends when its last job did; its jobs come with
    /// their outputs.
    @Test(arguments: StoreKind.testable)
    func aRunSucceedsWhenEveryJobDidAndEndsWithItsLastJob(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (run, _) = try await steps.createRun([("a", Steps.job()), ("b", Steps.job())], at: 10)
            let held = try await steps.claim(at: 20)
            #expect(try await steps.succeed(held[1], output: "\"b\"", at: 50))
            #expect(try await store.run(run)?.state == .running)
            #expect(try await steps.succeed(held[0], output: "\"a\"", at: 30))
            let stored = try #require(try await store.run(run))
            #expect(stored.state == .succeeded && stored.endedAt == 50 && stored.counts == [.succeeded: 2])
            #expect(try await store.jobs(of: run).map(\.job.output) == [Data("\"a\"".utf8), Data("\"b\"".utf8)])
        }
    }

    /// A run whose job was cancelled on its own (not by `cancelRun`) failed: no one cancelled
    /// the run.
    @Test(arguments: StoreKind.testable)
    func aRunWithAJobCancelledAloneFailedRatherThanWasCancelled(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let (run, ids) = try await steps.createRun([("a", Steps.job()), ("b", Contract.after(0))], at: 0)
            #expect(try await steps.store.cancel(ids[0], now: 15) == .cancelled)
            let stored = try #require(try await steps.runStore().run(run))
            #expect(stored.state == .failed && stored.cancelledAt == nil && stored.endedAt == 15)
            #expect(stored.counts == [.cancelled: 1, .skipped: 1])
        }
    }

    /// A run whose job waits for a retry is still running.
    @Test(arguments: StoreKind.testable)
    func aRunWaitingForARetryIsStillRunning(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let (run, _) = try await steps.createRun([("a", Steps.job(retry: Contract.threeAttempts))], at: 0)
            #expect(try await steps.fail(try await steps.claimOne(), retryAt: 1_000, at: 10))
            let stored = try #require(try await steps.runStore().run(run))
            #expect(stored.state == .running && stored.endedAt == nil && stored.counts == [.available: 1])
        }
    }
}
