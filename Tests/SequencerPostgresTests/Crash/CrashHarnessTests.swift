import Foundation
import SequencerQueue
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Kills `queue-crash-worker` processes with SIGKILL at random moments (mid-claim, mid-body,
/// and right after a body's end, mid-commit) while they work one store (an SQLite file, or a
/// PostgreSQL database), restarts them, and checks the store and the ledger their bodies write:
/// nothing lost, no recorded success run again, needs respected, no job, key or width-1 lane
/// run by two bodies at once.
///
/// `SEQUENCER_CRASH_POINTS=500 swift test --skip-build --filter CrashHarnessTests` runs the long
/// version (100 kills on each store by default); `SEQUENCER_CRASH_SEED` changes
/// the kill schedule.
@Suite(.serialized, .timeLimit(.minutes(20)))
struct CrashHarnessTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test(arguments: StoreKind.testable)
    func killedWorkersLoseNothingAndRecordEachSuccessOnce(_ kind: StoreKind) async throws {
        let points = Self.environment["SEQUENCER_CRASH_POINTS"].flatMap(Int.init) ?? 100
        let seed = Self.environment["SEQUENCER_CRASH_SEED"].flatMap(UInt64.init) ?? 12
        let driver = try await CrashDriver(seed: seed, kind: kind)
        let began = ContinuousClock.now
        try await driver.seed(round: 0)
        while driver.kills < points {
            try await driver.noteEnded()
            if try await driver.liveJobs() == 0 {
                try await driver.check("round \(driver.rounds)")
                try await driver.seed(round: driver.rounds)
            }
            let wanted = driver.random.int(1...2)
            while driver.workers.count < wanted { try driver.start("work") }
            driver.expectIntact()
            try await driver.killOne()
        }
        try await driver.drain()
        try await driver.check("the end", final: true)
        let jobs = try await driver.store.counts().values.reduce(0, +)
        print(
            "crash harness (\(kind), seed \(seed)): \(driver.kills) kills (\(driver.killsBesideAnother) beside another worker, "
                + "\(driver.killsAtReady) as soon as ready, "
                + "\(driver.ledger.endsMidBody()) mid-body, "
                + "\(driver.killsAfterEnd) right after a body's end, \(driver.killsBeforeCommit) of them before its commit), "
                + "\(driver.starts) worker starts, \(driver.rounds) seeded rounds, \(jobs) jobs, "
                + "\(driver.ledger.events.count) ledger events, \(began.duration(to: .now))")
        #expect(driver.kills >= points)
        await driver.finish()
    }

    @Test(arguments: StoreKind.testable)
    func aBodyThatKillsItsProcessIsFailedAsPoisonAndItsDependentsSkipped(_ kind: StoreKind) async throws {
        let driver = try await CrashDriver(seed: 1, kind: kind)
        try await driver.run(["seed-poison", driver.location, driver.manifestPath(0)])
        try driver.readManifest(0)
        let poison = try #require(driver.planned.first { $0.value.expect == "crashed" }?.key)
        // Its dependents are skipped in the transaction that fails it: no need to wait for them.
        let deadline = ContinuousClock.now + .seconds(60)
        while try await driver.store.job(DurableJobID(poison))?.state.isLive == true, ContinuousClock.now < deadline {
            try await driver.noteEnded()
            if driver.workers.isEmpty { try driver.start("work-poison") }
            try await Task.sleep(for: .milliseconds(5))
        }
        try await driver.stopAll()
        try await driver.check("poison", final: true)
        let failed = try #require(await driver.store.job(DurableJobID(poison)))
        #expect(failed.kind == "poison" && failed.crashes == 3)
        // Each death was a start of its body; none after the third counted. One more when its
        // first claim was ahead of a free slot: that end is not counted (see QueueStore.claim).
        let starts = driver.ledger.runs().filter { $0.job == poison }.count
        #expect(starts == 3 || starts == 4, "\(starts) starts")
        #expect(driver.died == starts)
        await driver.finish()
    }
}
