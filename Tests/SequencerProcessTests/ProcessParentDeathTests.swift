#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SequencerProcess
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// ``ProcessCommand/diesWithParent``: the command runs under a supervisor that relays its end
/// and behaves, for the runner, as the command itself. (Its point, the group ending with a
/// killed parent, is tested end to end by `WorkerKillTests` on a killed `sequencer worker`.)
@Suite struct ProcessParentDeathTests {
    #if os(Linux)
    func run(_ script: String, in directory: TemporaryDirectory, runner: ProcessRunner = ProcessRunner()) async throws -> ProcessExit {
        let command = ProcessCommand.shell(script, environment: ["PATH": testPath], directory: directory.path).dyingWithParent()
        return try await runner.run(command, outputPath: directory.file("out.log"))
    }

    @Test func theCommandsExitAndOutputAreRelayed() async throws {
        let directory = try TemporaryDirectory()
        #expect(try await run("echo out; echo err >&2; pwd; exit 3", in: directory) == .exited(3))
        #expect(directory.read("out.log") == "out\nerr\n\(directory.path)\n")
        #expect(try await run("true", in: directory) == .exited(0))
    }

    @Test func aSignalThatEndsTheCommandEndsItsSupervisorTheSameWay() async throws {
        let directory = try TemporaryDirectory()
        #expect(try await run("kill -TERM $$", in: directory) == .signaled(SIGTERM))
        #expect(try await run("kill -KILL $$", in: directory) == .signaled(SIGKILL))
    }

    @Test func cancellingStopsTheCommandAndItsGroup() async throws {
        let directory = try TemporaryDirectory()
        let runner = ProcessRunner(terminationGrace: .seconds(5))
        let task = Task { try await run("sleep 1000 & echo $! > sleep.pid; wait", in: directory, runner: runner) }
        let sleeper = try #require(await line("sleep.pid", in: directory).flatMap { Int32($0) })
        task.cancel()
        #expect(try await task.value == .signaled(SIGTERM))
        #expect(await eventually { processHasEnded(sleeper) })
    }

    @Test func aProgramThatCannotRunIsAnError() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("script", "#!/nonexistent/interpreter\n", permissions: 0o755)
        let command = ProcessCommand(arguments: ["./script"], environment: [:], directory: directory.path).dyingWithParent()
        await #expect(throws: ProcessError.self) { try await ProcessRunner().run(command, outputPath: directory.file("out.log")) }
    }
    #endif
}
