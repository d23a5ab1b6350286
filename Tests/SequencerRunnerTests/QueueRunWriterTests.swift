import Foundation
import SequencerHistory
import SequencerQueue
import SequencerTestHelpers
import Testing

/// A queue's `RunWriter`: what a worker writes reaches the store, in order, by the time `flush()`
/// returns, and reads back through `RunHistory` as the history's attempts and fingerprints.
@Suite struct QueueRunWriterTests {
    /// A run of two jobs in a new queue of `kind`; `body` gets the store, the run and the jobs' IDs.
    private func withRun(
        _ kind: StoreKind, _ body: (any RunStore, QueueRunID, [DurableJobID]) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        try await kind.withStore(in: directory) { store, _ in
            let jobs = ["build", "test"].map { (name: $0, job: NewDurableJob(kind: "k", input: Data("{}".utf8), runAt: 0)) }
            let (run, ids) = try await store.createRun(NewQueueRun(workflow: "w", origin: "here:/w/sequencer.yml"), jobs: jobs, now: 0)
            try await body(store, run, ids)
        }
    }

    @Test(arguments: StoreKind.testable)
    func attemptsWrittenAreReadBackThroughTheHistoryOnceFlushed(_ kind: StoreKind) async throws {
        try await withRun(kind) { store, run, ids in
            let writer = QueueRunWriter(store: store, workflow: "w", worker: "w1")
            let second: Int64 = 1_000_000_000
            writer.recordAttempt(NewAttempt(
                job: "build", queueJob: ids[0].rawValue, attempt: 1, startedAt: 10 * second, endedAt: 12 * second, end: .failed,
                exit: "exit code 3", exitCode: 3, output: .bytes(Data("no\n".utf8))))
            writer.recordAttempt(NewAttempt(
                job: "build", queueJob: ids[0].rawValue, attempt: 2, startedAt: 13 * second, endedAt: 14 * second, end: .failed,
                exit: "killed by SIGTERM", signal: 15))
            writer.recordAttempt(NewAttempt(
                job: "test", queueJob: ids[1].rawValue, attempt: 1, startedAt: 15 * second, endedAt: 15 * second, end: .refused,
                exit: "not run here: another copy"))
            // No queue ID: nothing the store could file it under.
            writer.recordAttempt(NewAttempt(job: "test", attempt: 9, startedAt: 0, endedAt: 0, end: .succeeded, exit: "exit code 0"))
            await writer.flush()

            let history = QueueHistory(store: store, location: "q")
            let record = try #require(try await history.run(run.rawValue))
            let attempts = record.attempts.sorted { ($0.job, $0.attempt) < ($1.job, $1.attempt) }
            #expect(attempts.map(\.job) == ["build", "build", "test"])
            #expect(attempts.map(\.exit) == ["exit code 3", "killed by SIGTERM", "not run here: another copy"])
            #expect(attempts.map(\.exitCode) == [3, nil, nil] && attempts.map(\.signal) == [nil, 15, nil])
            #expect(attempts.map(\.startedAt) == [10 * second, 13 * second, 15 * second])
            #expect(attempts.map(\.worker) == ["w1", "w1", "w1"] && attempts.map(\.refused) == [false, false, true])
            let output = try await history.output(of: attempts[0], in: record, last: nil)
            #expect(output == .bytes(Data("no\n".utf8), size: 3))
        }
    }

    @Test(arguments: StoreKind.testable)
    func recordsKeepTheirOrderAcrossManyWritesBeforeOneFlush(_ kind: StoreKind) async throws {
        try await withRun(kind) { store, run, ids in
            let writer = QueueRunWriter(store: store, workflow: "w", worker: "w1")
            // The same attempt written again replaces the record before: only the last stays.
            for round in 1...50 {
                writer.recordAttempt(NewAttempt(
                    job: "build", queueJob: ids[0].rawValue, attempt: 1, startedAt: 0, endedAt: Int64(round) * 1_000_000,
                    end: .failed, exit: "round \(round)"))
            }
            await writer.flush()
            let attempts = try await store.attempts(of: run)
            #expect(attempts.map(\.summary) == ["round 50"])
        }
    }

    @Test(arguments: StoreKind.testable)
    func aFingerprintRecordedByTheCheckIsKeptForTheWorkflow(_ kind: StoreKind) async throws {
        try await withRun(kind) { store, _, _ in
            let writer = QueueRunWriter(store: store, workflow: "w", worker: "w1")
            writer.recordFingerprint(job: "build", fingerprint: "f1", parts: ["command": "c1"], outputs: ["a.o": "stamp"])
            // A queue keeps no checks: recording one changes nothing.
            writer.recordCheck(job: "build", fingerprint: "f1", reason: "input a.c changed")
            await writer.flush()
            let stored = try await store.fingerprints(workflow: "w")
            #expect(stored == ["build": Fingerprint(fingerprint: "f1", parts: ["command": "c1"], outputs: ["a.o": "stamp"])])
            #expect(try await store.fingerprints(workflow: "other").isEmpty)
        }
    }
}
