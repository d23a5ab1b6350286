import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A no-op leaves a witness (`.sequencer/ninja-noop`): the stamps of every file its verdict
/// read. The next invocation with the same arguments says "no work to do" from the stamps
/// alone, and any change to one of those files sends it down the full path.
@Suite(.suiteTimeLimit)
struct NinjaNoOpTests {
    static let manifest = """
        rule cat
          command = cat $in > $out && echo $out >> ran.log
        build mid: cat src | header
        build out: cat mid || order
        build order: cat src

        """

    /// A directory with the manifest and its sources.
    func project() throws -> CLI {
        let cli = try CLI()
        try cli.write("build.ninja", Self.manifest)
        try cli.write("src", "s\n")
        try cli.write("header", "h\n")
        return cli
    }

    func ran(_ cli: CLI) -> [String] {
        (cli.read("ran.log") ?? "").split(separator: "\n").map(String.init)
    }

    /// Sets every file's modification time 10 s back, out of the racy window (a witness never
    /// trusts a file modified in the last 2 s).
    func age(_ cli: CLI) throws {
        let past = Date().addingTimeInterval(-10)
        let files = FileManager.default.enumerator(atPath: cli.directory.path)
        while let name = files?.nextObject() as? String {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: cli.path(name))
        }
    }

    func witness(_ cli: CLI) -> [String] {
        (cli.read(".sequencer/ninja-noop") ?? "").split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    func build(_ cli: CLI, _ arguments: [String] = []) async throws -> String {
        let result = try await cli.run(["ninja"] + arguments)
        #expect(result.status == 0, "\(result.output)")
        return result.stdout
    }

    @Test func aNoOpLeavesAWitnessOfEveryFileItRead() async throws {
        let cli = try project()
        _ = try await build(cli)
        try age(cli)
        #expect(try await build(cli) == "ninja: no work to do.\n")
        let lines = witness(cli)
        #expect(lines.first == "sequencer-ninja-noop 1")
        let paths = Set(lines.dropFirst(2).map { String($0.split(separator: " ", maxSplits: $0.hasPrefix("f ") ? 4 : 1).last ?? "") })
        for path in ["build.ninja", "src", "header", "mid", "out", "order", ".sequencer/ninja-state", ".ninja_log", ".ninja_deps"] {
            #expect(paths.contains(path), "\(path) is not in the witness: \(lines)")
        }
        #expect(try await build(cli) == "ninja: no work to do.\n")
        #expect(ran(cli).sorted() == ["mid", "order", "out"])
    }

    @Test func anyChangeToAWitnessedFileTakesTheFullPath() async throws {
        let cli = try project()
        _ = try await build(cli)
        try age(cli)
        _ = try await build(cli)
        #expect(witness(cli).count > 2)
        // An implicit input edited: the edge that reads it runs.
        try cli.write("header", "h2\n")
        #expect(try await build(cli).contains("cat src > mid"))
        try age(cli)
        _ = try await build(cli)
        #expect(witness(cli).count > 2)
        // An output deleted.
        try FileManager.default.removeItem(atPath: cli.path("out"))
        #expect(try await build(cli).contains("cat mid > out"))
        try age(cli)
        _ = try await build(cli)
        // The manifest edited: a new command.
        try cli.write("build.ninja", Self.manifest.replacingOccurrences(of: "build out: cat mid", with: "build out: cat mid src"))
        #expect(try await build(cli).contains("cat mid src > out"))
        // mid came out the same after the header's edit: out did not run then.
        #expect(ran(cli).sorted() == ["mid", "mid", "order", "out", "out", "out"])
    }

    @Test func theWitnessIsForItsArguments() async throws {
        let cli = try project()
        _ = try await build(cli, ["order"])
        try age(cli)
        #expect(try await build(cli, ["order"]) == "ninja: no work to do.\n")
        #expect(witness(cli).count > 2)
        // Another target: not a no-op, whatever the witness of `order` says.
        #expect(try await build(cli) == "[1/2] cat src > mid && echo mid >> ran.log\n[2/2] cat mid > out && echo out >> ran.log\n")
    }

    @Test func aFileModifiedWithinTheRacyWindowLeavesNoWitness() async throws {
        let cli = try project()
        _ = try await build(cli)
        try age(cli)
        // Whatever the machine's speed: a modification time ahead of the clock is always
        // within the window.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: cli.path("header"))
        #expect(try await build(cli) == "ninja: no work to do.\n")
        #expect(cli.read(".sequencer/ninja-noop") == nil)
    }
}
