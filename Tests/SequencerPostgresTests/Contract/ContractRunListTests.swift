import Foundation
import Sequencer
import SequencerHistory
import SequencerQueue
import Testing

/// Lists of runs (`runs(workflow:before:limit:)`, `runCount(workflow:)`, `workflows()`) and a
/// workflow's fingerprints (`fingerprints(workflow:jobs:)`, `recordFingerprint`) on both stores.
@Suite(.serialized) struct ContractRunListTests {
    /// Runs come newest first: all of them with no limit, none with a limit of zero.
    @Test(arguments: StoreKind.testable)
    func runsComeNewestFirstAndALimitOfNoneIsAll(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            var ids: [QueueRunID] = []
            for number in 0..<4 { ids.append(try await steps.createRun([("a", Steps.job())], at: Int64(100 - number)).0) }
            #expect(try await store.runs(workflow: nil, limit: nil).map(\.id) == ids.reversed(), "by ID, not by creation time")
            #expect(try await store.runs(workflow: "w", before: nil, limit: nil).map(\.id) == ids.reversed())
            #expect(try await store.runs(workflow: nil, limit: 0).isEmpty)
            #expect(try await store.runs(workflow: nil, limit: 1).map(\.createdAt) == [97])
        }
    }

    /// A page before the oldest run is empty, and a page may start before a run that was
    /// deleted, or one of another workflow.
    @Test(arguments: StoreKind.testable)
    func aPageStartsBeforeAnyRunEvenADeletedOne(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let a0 = try await steps.oneJobRun("a", ending: .succeeded(Data()))
            let b0 = try await steps.oneJobRun("b", ending: .succeeded(Data()))
            let a1 = try await steps.oneJobRun("a", ending: .succeeded(Data()))
            let b1 = try await steps.oneJobRun("b", ending: nil)
            #expect(try await store.runs(workflow: nil, before: a0, limit: 10).isEmpty)
            #expect(try await store.runs(workflow: "a", before: b1, limit: 10).map(\.id) == [a1, a0])
            #expect(try await store.deleteRuns(keeping: 1, workflow: "b").map(\.id) == [b0])
            #expect(try await store.runs(workflow: nil, before: b0, limit: 10).map(\.id) == [a0])
            #expect(try await store.runs(workflow: nil, before: QueueRunID(b1.rawValue + 10), limit: 2).map(\.id) == [b1, a1])
        }
    }

    /// A run is counted whatever its state; a workflow with no run is counted zero.
    @Test(arguments: StoreKind.testable)
    func runsAreCountedWhateverTheirState(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            _ = try await steps.oneJobRun("a", ending: .succeeded(Data()))
            _ = try await steps.oneJobRun("a", ending: Contract.failure())
            let cancelled = try await steps.oneJobRun("a", ending: nil)
            _ = try await store.cancelRun(cancelled, now: 1)
            _ = try await steps.oneJobRun("b", ending: nil)
            #expect(try await store.runs(workflow: "a", limit: nil).map(\.state) == [.cancelled, .failed, .succeeded])
            #expect(try await store.runCount(workflow: "a") == 3)
            #expect(try await store.runCount(workflow: "b") == 1)
            #expect(try await store.runCount(workflow: nil) == 4)
            #expect(try await store.runCount(workflow: "A") == 0, "a workflow's name is matched exactly")
        }
    }

    /// The workflows that have runs are listed once each, by name, as bytes order them.
    @Test(arguments: StoreKind.testable)
    func workflowsAreListedOnceEachByName(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            #expect(try await store.workflows().isEmpty)
            for workflow in ["zeta", "alpha", "zeta", "Beta", "émile", "alpha"] {
                _ = try await steps.createRun(workflow, [("a", Steps.job())])
            }
            #expect(try await store.workflows() == ["Beta", "alpha", "zeta", "émile"])
        }
    }

    /// A fingerprint is read back as it was recorded: its parts and outputs text exactly, with
    /// any characters, or none.
    @Test(arguments: StoreKind.testable)
    func aFingerprintIsReadBackExactly(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let rich = Fingerprint(
                fingerprint: "e3b0c442", parts: ["command": "cc -O2 'a b.c'", "env:LANG": "fr_FR.UTF-8", "input:dossier/é.c": "ü✓"],
                outputs: ["out/a b.o": "123 456", "out/\"q\".o": "7"])
            let empty = Fingerprint(fingerprint: "", parts: [:], outputs: [:])
            try await store.recordFingerprint(rich, workflow: "app", job: "compile", now: 1)
            try await store.recordFingerprint(empty, workflow: "app", job: "nothing", now: 1)
            let read = try await store.fingerprints(workflow: "app")
            #expect(read == ["compile": rich, "nothing": empty])
            #expect(read["compile"]?.parts == rich.parts && read["compile"]?.outputs == rich.outputs)
        }
    }

    /// Fingerprints are asked for by job names of any characters, matched exactly.
    @Test(arguments: StoreKind.testable)
    func fingerprintsAreFilteredByJobNamesOfAnyCharacters(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let names = ["a,b", "{x}", "back\\slash", "quote\"d", "it's", "été ✓", "NULL", "", "with space"]
            for (index, name) in names.enumerated() {
                try await store.recordFingerprint(Fingerprint(fingerprint: "f\(index)", parts: [:], outputs: [:]), workflow: "w", job: name, now: 1)
            }
            for name in names {
                let found = try await store.fingerprints(workflow: "w", jobs: [name, name.uppercased() + "?"])
                #expect(found.keys.sorted() == [name], "\(name)")
            }
            #expect(try await store.fingerprints(workflow: "w", jobs: names).count == names.count)
            #expect(try await store.fingerprints(workflow: "w", jobs: ["a", "b", "x"]).isEmpty)
        }
    }

    /// A fingerprint recorded again replaces the one before; other workflows keep theirs.
    @Test(arguments: StoreKind.testable)
    func aFingerprintRecordedAgainReplacesTheOneBeforeInItsWorkflowOnly(_ kind: StoreKind) async throws {
        try await kind.withSteps { steps in
            let store = try steps.runStore()
            let old = Fingerprint(fingerprint: "old", parts: ["command": "1"], outputs: ["o": "1"])
            let new = Fingerprint(fingerprint: "new", parts: ["command": "2"], outputs: [:])
            for workflow in ["one", "two"] { try await store.recordFingerprint(old, workflow: workflow, job: "j", now: 1) }
            try await store.recordFingerprint(new, workflow: "one", job: "j", now: 2)
            #expect(try await store.fingerprints(workflow: "one", jobs: ["j"]) == ["j": new])
            #expect(try await store.fingerprints(workflow: "two") == ["j": old])
            #expect(try await store.fingerprints(workflow: "three").isEmpty)
        }
    }
}
