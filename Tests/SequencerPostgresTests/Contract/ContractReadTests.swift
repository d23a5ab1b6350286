import Foundation
import Sequencer
import SequencerQueue
import Testing

/// The reads of `QueueStore` on both stores: `job(_:)`, `jobs(in:after:limit:)`, `counts()`
/// and `nextRunTime(kinds:after:)`.
@Suite(.serialized) struct ContractReadTests {
    @Test(arguments: StoreKind.testable)
    func aJobThatWasNeverEnqueuedIsNil(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            #expect(try await steps.store.job(DurableJobID(a.rawValue + 1)) == nil)
            #expect(try await steps.store.job(DurableJobID(0)) == nil)
            #expect(try await steps.store.job(a)?.id == a)
        }
    }

    /// A job's output is read with the job alone; a list of jobs leaves it out.
    @Test(arguments: StoreKind.testable)
    func aJobsOutputComesWithItAloneNotInLists(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let a = try await steps.enqueue(Steps.job())
            #expect(try await steps.succeed(try await steps.claimOne(), output: "[1,2,3]", at: 5))
            #expect(try await steps.stored(a).output == Data("[1,2,3]".utf8))
            let listed = try await steps.store.jobs(in: [.succeeded], after: nil, limit: 10)
            #expect(listed.map(\.id) == [a] && listed.first?.output == nil && listed.first?.endedAt == 5)
        }
    }

    /// Jobs are listed oldest first, in pages that go on after the last job of the one before.
    @Test(arguments: StoreKind.testable)
    func jobsAreListedOldestFirstInPagesAfterAGivenJob(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue((0..<5).map { Steps.job(priority: $0 % 2 == 0 ? .background : .userInteractive) }, now: 0)
            var pages: [[DurableJobID]] = []
            var after: DurableJobID?
            repeat {
                let page = try await steps.store.jobs(in: [.available], after: after, limit: 2)
                pages.append(page.map(\.id))
                after = page.last?.id
            } while after != nil
            #expect(pages == [[ids[0], ids[1]], [ids[2], ids[3]], [ids[4]], []])
            #expect(try await steps.store.jobs(in: [.available], after: ids[4], limit: 10).isEmpty)
        }
    }

    /// Only the states asked for are listed, with each job's fields as `job(_:)` reads them.
    @Test(arguments: StoreKind.testable)
    func jobsAreListedInTheStatesAskedForOnly(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let ids = try await steps.store.enqueue([Steps.job(), Steps.job(), Contract.after(0), Steps.job(), Steps.job()], now: 0)
            let held = try await steps.claim(limit: 2)
            #expect(try await steps.fail(held[1], at: 10))
            #expect(try await steps.store.cancel(ids[3], now: 10) == .cancelled)
            let listed = try await steps.store.jobs(in: [.running, .failed], after: nil, limit: 10)
            #expect(listed.map(\.id) == [ids[0], ids[1]])
            var running = try await steps.stored(ids[0])
            running.output = nil
            #expect(listed.first == running)
            #expect(try await steps.store.jobs(in: [.waiting, .cancelled], after: nil, limit: 10).map(\.id) == [ids[2], ids[3]])
            #expect(try await steps.store.jobs(in: [.succeeded, .skipped], after: nil, limit: 10).isEmpty)
            #expect(try await steps.store.jobs(in: [], after: nil, limit: 10).isEmpty)
        }
    }

    /// Counts name every state that has jobs, and no other: an empty store has none.
    @Test(arguments: StoreKind.testable)
    func countsNameEveryStateThatHasJobsAndNoOther(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            #expect(try await steps.store.counts() == [:])
            let ids = try await steps.store.enqueue(
                [Steps.job(), Steps.job(), Steps.job(), Contract.after(2), Steps.job(), Steps.job(), Steps.job()], now: 0)
            let held = try await steps.claim(limit: 4)
            #expect(held.map(\.id) == [ids[0], ids[1], ids[2], ids[4]])
            #expect(try await steps.succeed(held[0], at: 1))
            #expect(try await steps.fail(held[2], at: 1))
            #expect(try await steps.store.cancel(ids[5], now: 1) == .cancelled)
            let needsRunning = try await steps.enqueue(Steps.job(needs: [ids[1]]))
            #expect(try await steps.store.counts() == [
                .succeeded: 1, .failed: 1, .skipped: 1, .cancelled: 1, .running: 2, .available: 1, .waiting: 1,
            ])
            #expect(try await steps.state(needsRunning) == .waiting)
        }
    }

    /// The next run time is the earliest run time after `now` of an available job of the kinds
    /// asked for: not a waiting job's, not another kind's, not one that has come already.
    @Test(arguments: StoreKind.testable)
    func theNextRunTimeIsTheEarliestComingRunTimeOfAnAvailableJobOfTheKinds(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            #expect(try await steps.store.nextRunTime(kinds: ["k"], after: 0) == nil)
            let need = try await steps.enqueue(Steps.job("need"))
            _ = try await steps.enqueue(Steps.job(at: 50))
            _ = try await steps.enqueue(Steps.job(at: 300))
            _ = try await steps.enqueue(Steps.job("other", at: 200))
            _ = try await steps.enqueue(Steps.job(needs: [need], at: 100))
            #expect(try await steps.store.nextRunTime(kinds: ["k"], after: 60) == 300)
            #expect(try await steps.store.nextRunTime(kinds: ["k"], after: 10) == 50)
            #expect(try await steps.store.nextRunTime(kinds: ["k", "other"], after: 60) == 200)
            #expect(try await steps.store.nextRunTime(kinds: ["k"], after: 300) == nil, "a run time that is now has come")
            #expect(try await steps.store.nextRunTime(kinds: [], after: 0) == nil)
            #expect(try await steps.store.nextRunTime(kinds: ["none"], after: 0) == nil)
        }
    }

    /// A running job's run time is no next run time: only available jobs count.
    @Test(arguments: StoreKind.testable)
    func aRunningJobsRunTimeIsNoNextRunTime(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            _ = try await steps.enqueue(Steps.job(at: 500))
            _ = try await steps.claimOne(at: 500)
            #expect(try await steps.store.nextRunTime(kinds: ["k"], after: 100) == nil)
        }
    }
}
