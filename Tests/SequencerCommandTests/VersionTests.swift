import Foundation
import Sequencer
import Testing
import SequencerTestHelpers

/// `sequencer --version` and `sequencer-serve --version`, as every command-line tool has.
@Suite(.suiteTimeLimit)
struct VersionTests {
    @Test func sequencerPrintsItsVersionWithoutReadingTheFileOrTheJournal() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        // Neither is read: a file that is not a workflow and a journal that is not SQLite.
        try cli.write("sequencer.yml", "not: [a workflow\n")
        try cli.write(".sequencer/journal.sqlite", "not a database")
        let result = try await cli.run(["--version"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout == "sequencer \(SequencerVersion.current)\n", "\(result.output)")
        #expect(result.stderr.isEmpty, "\(result.output)")
    }

    @Test func sequencerServePrintsTheSameVersion() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        let serve = CLI.binary.deletingLastPathComponent().appendingPathComponent("sequencer-serve")
        let process = Process()
        process.executableURL = serve
        process.arguments = ["--version"]
        process.currentDirectoryURL = cli.directory
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let direct = try await cli.finish(process, stdout, stderr)
        #expect(direct.status == 0, "\(direct.output)")
        #expect(direct.stdout == "sequencer-serve \(SequencerVersion.current)\n", "\(direct.output)")
        // `sequencer serve` starts that binary with its arguments.
        let through = try await cli.run(["serve", "--version"])
        #expect(through.status == 0, "\(through.output)")
        #expect(through.stdout == direct.stdout, "\(through.output)")
    }
}
