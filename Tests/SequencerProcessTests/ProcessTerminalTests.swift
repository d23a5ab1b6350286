#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SequencerProcess
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// `usesTerminal` (ninja's `console` pool): the child stays in this process's group, with its
/// descriptors, and can still be cancelled.
@Suite struct ProcessTerminalTests {
    private func sh(_ script: String, in directory: TemporaryDirectory) -> ProcessCommand {
        var command = ProcessCommand(arguments: ["/bin/sh", "-c", script], environment: ["PATH": testPath], directory: directory.path)
        command.usesTerminal = true
        return command
    }

    @Test func aTerminalCommandStaysInThisProcessGroupAndLeavesItsOutputFileEmpty() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-terminal")
        defer { directory.remove() }
        let runner = ProcessRunner()
        // Its own group would be its pid; this process's group is getpgrp().
        let exit = try await runner.run(sh("ps -o pgid= -p $$ > group", in: directory), outputPath: directory.file("out"))
        #expect(exit == .exited(0))
        let group = try String(contentsOfFile: directory.file("group"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(group == String(getpgrp()))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("out"))).isEmpty)
    }

    @Test func aCancelledTerminalCommandIsStopped() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-terminal")
        defer { directory.remove() }
        let runner = ProcessRunner(terminationGrace: .milliseconds(200))
        let task = Task { try await runner.run(sh("echo started > started; exec sleep 3600", in: directory), outputPath: directory.file("out")) }
        #expect(await eventually { FileManager.default.fileExists(atPath: directory.file("started")) })
        task.cancel()
        let exit = try await task.value
        #expect(exit == .signaled(SIGTERM))
    }
}
