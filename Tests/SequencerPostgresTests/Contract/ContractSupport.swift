import Foundation
import Sequencer
import SequencerQueue
import Testing

/// What the contract suites share: jobs and attempts to build, and a few reads of a store
/// driven by `Steps` (the same on SQLite and on PostgreSQL).
///
/// Each contract suite is `.serialized`: every PostgreSQL case has a database and a pool of its
/// own, and a hundred of them at once, beside the other suites', would exhaust the server's
/// connections (`too many clients already`). The suites still run beside each other.
enum Contract {
    /// Three attempts, one second apart: a job that may be tried again.
    static let threeAttempts = StoredRetry(maxAttempts: 3, initialMilliseconds: 1_000, multiplier: 1, maximumMilliseconds: 1_000, jitter: 0)

    /// A job that needs the jobs at `positions` of its own batch.
    static func after(_ positions: Int..., job: NewDurableJob = Steps.job()) -> NewDurableJob {
        var job = job
        job.needsInBatch = positions
        return job
    }

    /// An attempt as a worker logs it.
    static func attempt(
        _ job: DurableJobID, _ number: Int = 1, worker: String = "w1", started: Int64 = 0, ended: Int64 = 10, outcome: String = "succeeded",
        exitCode: Int? = 0, signal: Int? = nil, summary: String = "exit 0", output: String? = nil
    ) -> QueueAttempt {
        QueueAttempt(
            job: job, attempt: number, worker: worker, startedAt: started, endedAt: ended, outcome: outcome, exitCode: exitCode,
            signal: signal, summary: summary, output: output.map { Data($0.utf8) })
    }

    /// The failure that a worker reports, for good (`retryAt` nil) or to be tried again.
    static func failure(_ code: String = "failed", _ message: String = "boom", retryAt: Int64? = nil) -> AttemptEnd.Outcome {
        .failed(code: code, message: message, retryAt: retryAt)
    }
}

extension Steps {
    /// The store as a ``RunStore``: both stores keep runs.
    func runStore() throws -> any RunStore { try #require(store as? any RunStore) }

    /// A job that must be in the store.
    func stored(_ id: DurableJobID) async throws -> DurableJob { try #require(try await store.job(id)) }

    /// The end of `job`'s attempt, from `owner`.
    static func ending(_ job: ClaimedJob, owner: String = "w1", _ outcome: AttemptEnd.Outcome) -> AttemptEnd {
        AttemptEnd(id: job.id, attempt: job.attempt, owner: owner, outcome: outcome)
    }

    /// How many jobs there are, in any state.
    func total() async throws -> Int { try await store.counts().values.reduce(0, +) }

    /// Claims exactly one job (of kind `k`) and returns it.
    func claimOne(_ owner: String = "w1", at now: Int64 = 0, lease: Int64 = 30_000) async throws -> ClaimedJob {
        let claimed = try await claim(owner, limit: 1, at: now, lease: lease)
        try #require(claimed.count == 1)
        return claimed[0]
    }

    /// Creates a run of `workflow` with `jobs`, at `now`.
    func createRun(
        _ workflow: String, _ jobs: [(name: String, job: NewDurableJob)], origin: String = "o", info: String? = nil, at now: Int64 = 0
    ) async throws -> (QueueRunID, [DurableJobID]) {
        try await runStore().createRun(NewQueueRun(workflow: workflow, origin: origin, info: info), jobs: jobs, now: now)
    }

    /// Creates a run of workflow `w` with `jobs`, at `now`.
    func createRun(
        _ jobs: [(name: String, job: NewDurableJob)], origin: String = "o", info: String? = nil, at now: Int64 = 0
    ) async throws -> (QueueRunID, [DurableJobID]) {
        try await createRun("w", jobs, origin: origin, info: info, at: now)
    }

    /// A run of one job named `only`, which is claimed and ends with `outcome` (or keeps running,
    /// with nil) at `now`.
    func oneJobRun(_ workflow: String = "w", ending outcome: AttemptEnd.Outcome?, at now: Int64 = 0) async throws -> QueueRunID {
        let (run, _) = try await createRun(workflow, [("only", Steps.job())], at: now)
        if let outcome { #expect(try await end(try claimOne(at: now), outcome, at: now)) }
        return run
    }
}

extension Sequence {
    /// The elements mapped one after the other by an async function.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
