import Foundation
import SequencerProcess
import SequencerTestHelpers
import SequencerTestSupport
import Testing

@Suite struct ProcessConcurrencyTests {
    @Test("50 concurrent runs are all reaped, each with its own exit and output", arguments: ExitWaiting.allCases)
    func fiftyConcurrentRuns(waiting: ExitWaiting) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let runner = ProcessRunner(waiting: waiting)
        let count = 50
        let exits = try await withThrowingTaskGroup(of: (Int, ProcessExit).self) { group in
            for index in 0..<count {
                // Half exit at once, half after a pause, so that exits and spawns overlap.
                let script = index.isMultiple(of: 2) ? "echo job $1; exit $2" : "sleep 0.2; echo job $1; exit $2"
                let command = ProcessCommand(
                    arguments: ["/bin/sh", "-c", script, "sh", "\(index)", "\(index % 7)"],
                    environment: ["PATH": testPath], directory: directory.path)
                let output = directory.file("out\(index)")
                group.addTask { (index, try await runner.run(command, outputPath: output)) }
            }
            var exits: [Int: ProcessExit] = [:]
            for try await (index, exit) in group { exits[index] = exit }
            return exits
        }
        #expect(exits.count == count)
        for index in 0..<count {
            #expect(exits[index] == .exited(Int32(index % 7)))
            #expect(directory.read("out\(index)") == "job \(index)\n")
        }
        #expect(runner.unfinishedCount == 0)
    }

    @Test("many short runs, one after another, each reaped before the next", arguments: ExitWaiting.allCases)
    func manyShortRuns(waiting: ExitWaiting) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let runner = ProcessRunner(waiting: waiting)
        let command = ProcessCommand(arguments: ["true"], environment: ["PATH": testPath], directory: directory.path)
        for _ in 0..<200 {
            #expect(try await runner.run(command, outputPath: directory.file("out")) == .exited(0))
            #expect(runner.unfinishedCount == 0)
        }
    }
}
