import Foundation
import Sequencer
import SequencerQueue
import Testing

/// The attempts' log of `RunStore` on both stores: `recordAttempt(_:)`, `attempts(of:)` and
/// `output(of:attempt:)`.
@Suite(.serialized) struct ContractAttemptTests {
    /// A run's attempts come oldest first, each as recorded, without its output.
    @Test(arguments: StoreKind.testable)
    func aRunsAttemptsComeOldestFirstAsRecordedWithoutTheirOutput(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (run, ids) = try await steps.createRun([("a", Steps.job()), ("b", Steps.job())])
            let late = Contract.attempt(ids[0], 2, worker: "w2", started: 300, ended: 400, outcome: "failed", exitCode: nil, signal: 9,
                                        summary: "killed by SIGKILL", output: "late\n")
            let early = Contract.attempt(ids[1], 1, worker: "w1", started: 100, ended: 250, outcome: "succeeded", summary: "exit 0", output: "b\n")
            let middle = Contract.attempt(ids[0], 1, worker: "w1", started: 200, ended: 210, outcome: "timedOut", exitCode: 124, summary: "timed out")
            for attempt in [late, early, middle] { try await store.recordAttempt(attempt) }
            var expected = [early, middle, late]
            for index in expected.indices { expected[index].output = nil }
            #expect(try await store.attempts(of: run) == expected)
        }
    }

    /// A second record of the same attempt by the same worker replaces the first.
    @Test(arguments: StoreKind.testable)
    func aSecondRecordOfAnAttemptByItsWorkerReplacesTheFirst(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (run, ids) = try await steps.createRun([("a", Steps.job())])
            try await store.recordAttempt(Contract.attempt(ids[0], started: 10, ended: 20, outcome: "failed", exitCode: 1, summary: "exit 1", output: "first"))
            let second = Contract.attempt(ids[0], started: 10, ended: 30, outcome: "succeeded", exitCode: 0, summary: "exit 0", output: "second")
            try await store.recordAttempt(second)
            var listed = second
            listed.output = nil
            #expect(try await store.attempts(of: run) == [listed])
            #expect(try await store.output(of: ids[0], attempt: 1) == Data("second".utf8))
        }
    }

    /// A late attempt, recorded by another worker under the same number, is kept beside the
    /// other: both ran.
    @Test(arguments: StoreKind.testable)
    func aLateAttemptOfAnotherWorkerIsKeptBesideTheOther(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (run, ids) = try await steps.createRun([("a", Steps.job())])
            try await store.recordAttempt(Contract.attempt(ids[0], 1, worker: "w1", started: 0, ended: 900, outcome: "succeeded"))
            try await store.recordAttempt(Contract.attempt(ids[0], 1, worker: "w2", started: 500, ended: 600, outcome: "succeeded"))
            #expect(try await store.attempts(of: run).map(\.worker) == ["w1", "w2"])
        }
    }

    /// With no attempt given, the output is the last attempt's, whatever the order the
    /// attempts were recorded in; with one, that attempt's; none for an attempt not recorded.
    @Test(arguments: StoreKind.testable)
    func theOutputIsOfTheAttemptGivenOrElseOfTheLastOne(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (_, ids) = try await steps.createRun([("a", Steps.job()), ("b", Steps.job())])
            for number in [3, 1, 2] {
                try await store.recordAttempt(Contract.attempt(ids[0], number, started: Int64(number) * 100, ended: Int64(number) * 100 + 50, output: "attempt \(number)"))
            }
            #expect(try await store.output(of: ids[0], attempt: nil) == Data("attempt 3".utf8))
            for number in 1...3 { #expect(try await store.output(of: ids[0], attempt: number) == Data("attempt \(number)".utf8)) }
            #expect(try await store.output(of: ids[0], attempt: 4) == nil)
            #expect(try await store.output(of: ids[1], attempt: nil) == nil)
            #expect(try await store.output(of: DurableJobID(ids[1].rawValue + 50), attempt: nil) == nil)
        }
    }

    /// An attempt recorded without output has none; the output of an earlier attempt is not
    /// given in its place.
    @Test(arguments: StoreKind.testable)
    func anAttemptRecordedWithoutOutputHasNone(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (_, ids) = try await steps.createRun([("a", Steps.job())])
            try await store.recordAttempt(Contract.attempt(ids[0], 1, output: "one"))
            try await store.recordAttempt(Contract.attempt(ids[0], 2, started: 20, ended: 30))
            #expect(try await store.output(of: ids[0], attempt: 2) == nil)
            #expect(try await store.output(of: ids[0], attempt: nil) == nil)
            #expect(try await store.output(of: ids[0], attempt: 1) == Data("one".utf8))
        }
    }

    /// An output is kept byte for byte, whatever its bytes.
    @Test(arguments: StoreKind.testable)
    func anOutputIsKeptByteForByte(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (_, ids) = try await steps.createRun([("a", Steps.job())])
            let bytes = Data((0...255).map { UInt8($0) } + Array("é ✓\r\n\u{0}".utf8))
            var attempt = Contract.attempt(ids[0])
            attempt.output = bytes
            try await store.recordAttempt(attempt)
            #expect(try await store.output(of: ids[0], attempt: 1) == bytes)
        }
    }

    /// A run's attempts are its own jobs' only; a plain job's attempt is logged too, and its
    /// output read by its job.
    @Test(arguments: StoreKind.testable)
    func aRunsAttemptsAreItsOwnJobsOnly(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let (first, a) = try await steps.createRun([("a", Steps.job())])
            let (second, b) = try await steps.createRun([("b", Steps.job())])
            let plain = try await steps.enqueue(Steps.job())
            for id in [a[0], b[0], plain] { try await store.recordAttempt(Contract.attempt(id, output: "of \(id)")) }
            #expect(try await store.attempts(of: first).map(\.job) == [a[0]])
            #expect(try await store.attempts(of: second).map(\.job) == [b[0]])
            #expect(try await store.output(of: plain, attempt: nil) == Data("of \(plain)".utf8))
        }
    }
}
