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

@Suite struct ProcessCancellationTests {
    private func sh(_ script: String, in directory: TemporaryDirectory) -> ProcessCommand {
        ProcessCommand(arguments: ["/bin/sh", "-c", script], environment: ["PATH": testPath], directory: directory.path)
    }

    @Test("cancelling sends SIGTERM to the whole group, background grandchild included", arguments: ExitWaiting.allCases)
    func cancelTerminatesTheGroup(waiting: ExitWaiting) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        // A long grace: if SIGTERM were not enough, the run would take a minute and end by SIGKILL.
        let runner = ProcessRunner(terminationGrace: .seconds(60), waiting: waiting)
        let command = sh("sleep 100 & echo $! > background.pid; wait", in: directory)
        let output = directory.file("out")
        let run = Task { try await runner.run(command, outputPath: output) }
        let background = try #require(await line("background.pid", in: directory).flatMap { pid_t($0) })
        #expect(!processHasEnded(background))
        run.cancel()
        #expect(try await run.value == .signaled(SIGTERM))
        #expect(await eventually { processHasEnded(background) })
        #expect(runner.unfinishedCount == 0)
    }

    @Test("a group that ignores SIGTERM gets SIGKILL after the grace period", arguments: ExitWaiting.allCases)
    func ignoredTerminationEscalates(waiting: ExitWaiting) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let runner = ProcessRunner(terminationGrace: .milliseconds(200), waiting: waiting)
        let command = sh("trap '' TERM; sleep 100 & echo $! > background.pid; wait", in: directory)
        let output = directory.file("out")
        let run = Task { try await runner.run(command, outputPath: output) }
        let background = try #require(await line("background.pid", in: directory).flatMap { pid_t($0) })
        let cancelled = ContinuousClock.now
        run.cancel()
        #expect(try await run.value == .signaled(SIGKILL))
        // SIGKILL comes no sooner than the grace period (an upper bound would be a timing assertion).
        #expect(ContinuousClock.now - cancelled >= .milliseconds(200))
        #expect(await eventually { processHasEnded(background) })
    }

    @Test func cancelledBeforeStartSpawnsNothing() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        try directory.write("out", "stale output of an earlier run\n")
        let runner = ProcessRunner()
        let command = ProcessCommand(arguments: ["touch", "marker"], environment: ["PATH": testPath], directory: directory.path)
        let output = directory.file("out")
        let run = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await runner.run(command, outputPath: output)
        }
        #expect(try await run.value == .signaled(SIGTERM))
        #expect(!directory.exists("marker"))
        #expect(directory.read("out") == "")
        #expect(runner.unfinishedCount == 0)
    }

    @Test func cancellingAfterTheExitChangesNothing() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let runner = ProcessRunner()
        let output = directory.file("out")
        let run = Task { try await runner.run(sh("exit 4", in: directory), outputPath: output) }
        let exit = try await run.value
        run.cancel()
        #expect(exit == .exited(4))
        #expect(try await run.value == .exited(4))
    }

    @Test("signalAll reaches every group of this runner and no other", arguments: ExitWaiting.allCases)
    func signalAllReachesEveryGroup(waiting: ExitWaiting) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let runner = ProcessRunner(waiting: waiting)
        let other = ProcessRunner(waiting: waiting)
        let count = 3
        var runs: [Task<ProcessExit, any Error>] = []
        for index in 0..<count {
            let command = sh("sleep 100 & echo $! > background\(index).pid; wait", in: directory)
            let output = directory.file("out\(index)")
            runs.append(Task { try await runner.run(command, outputPath: output) })
        }
        let otherOutput = directory.file("other.out")
        let otherRun = Task { try await other.run(sh("echo $$ > other.pid; sleep 100", in: directory), outputPath: otherOutput) }
        var backgrounds: [pid_t] = []
        for index in 0..<count {
            backgrounds.append(try #require(await line("background\(index).pid", in: directory).flatMap { pid_t($0) }))
        }
        let otherPID = try #require(await line("other.pid", in: directory).flatMap { pid_t($0) })

        runner.signalAll(SIGUSR1)
        for run in runs { #expect(try await run.value == .signaled(SIGUSR1)) }
        for background in backgrounds { #expect(await eventually { processHasEnded(background) }) }
        #expect(!processHasEnded(otherPID))
        #expect(other.unfinishedCount == 1)

        otherRun.cancel()
        #expect(try await otherRun.value == .signaled(SIGTERM))
    }

    @Test func signalAllWithNothingRunningDoesNothing() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let runner = ProcessRunner()
        runner.signalAll(SIGKILL)
        #expect(try await runner.run(sh("exit 0", in: directory), outputPath: directory.file("out")) == .exited(0))
        runner.signalAll(SIGKILL)
        #expect(try await runner.run(sh("exit 5", in: directory), outputPath: directory.file("out")) == .exited(5))
    }
}
