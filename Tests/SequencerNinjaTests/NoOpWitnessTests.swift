import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

@testable import SequencerNinja

/// The no-op witness as a file: written, checked, and refused when cut, foreign or racy.
@Suite struct NoOpWitnessTests {
    let files: TemporaryDirectory
    var directory: String { files.path }

    init() throws {
        files = try TemporaryDirectory(prefix: "noop-witness")
    }

    func file(_ name: String, _ text: String, age: TimeInterval = 10) throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: path)
        return path
    }

    @Test func aWitnessHoldsUntilAFileChanges() throws {
        let a = try file("a", "a\n")
        let missing = directory + "/missing"
        let witness = directory + "/.sequencer/ninja-noop"
        #expect(NoOpWitness.write(at: witness, key: "k", paths: [a, missing, directory], appendOnly: [], now: BuildStateStore.now(), racyWindow: 2_000_000_000))
        #expect(NoOpWitness.holds(at: witness, key: "k"))
        #expect(!NoOpWitness.holds(at: witness, key: "other arguments"))
        _ = try file("missing", "now here\n")
        #expect(!NoOpWitness.holds(at: witness, key: "k"))
        try FileManager.default.removeItem(atPath: missing)
        #expect(NoOpWitness.holds(at: witness, key: "k"))
        _ = try file("a", "b\n")  // same size, another modification time
        #expect(!NoOpWitness.holds(at: witness, key: "k"))
    }

    @Test func aRecentFileLeavesNoWitnessUnlessItOnlyGrows() throws {
        let recent = try file("recent", "r\n", age: 0)
        let witness = directory + "/noop"
        #expect(!NoOpWitness.write(at: witness, key: "", paths: [recent], appendOnly: [], now: BuildStateStore.now(), racyWindow: 2_000_000_000))
        #expect(!FileManager.default.fileExists(atPath: witness))
        #expect(NoOpWitness.write(at: witness, key: "", paths: [], appendOnly: [recent], now: BuildStateStore.now(), racyWindow: 2_000_000_000))
        #expect(NoOpWitness.holds(at: witness, key: ""))
    }

    @Test func aCutOrForeignWitnessHoldsNothing() throws {
        let a = try file("a", "a\n")
        let witness = directory + "/noop"
        #expect(NoOpWitness.write(at: witness, key: "k", paths: [a], appendOnly: [], now: BuildStateStore.now(), racyWindow: 2_000_000_000))
        let whole = try Data(contentsOf: URL(fileURLWithPath: witness))
        try whole.dropLast().write(to: URL(fileURLWithPath: witness))
        #expect(!NoOpWitness.holds(at: witness, key: "k"))
        try Data("sequencer-ninja-noop 2\nk\n".utf8).write(to: URL(fileURLWithPath: witness))
        #expect(!NoOpWitness.holds(at: witness, key: "k"))
        try Data("sequencer-ninja-noop 1\nk\nf x y z \(a)\n".utf8).write(to: URL(fileURLWithPath: witness))
        #expect(!NoOpWitness.holds(at: witness, key: "k"))
    }

    @Test func argumentsWithANewlineHaveNoKey() {
        #expect(NoOpWitness.key(["-C", "a\nb"]) == nil)
        #expect(NoOpWitness.key(["-j", "4"]) != NoOpWitness.key(["-j4"]))
    }
}
