#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// `sequencer worker --drain`: SIGTERM (an orchestrator's stop) lets the running command
/// finish and claims nothing more; a second signal stops the command at once, and its job goes
/// back to the queue. Without `--drain`, SIGTERM stops at once, as Ctrl-C does.
@Suite(.suiteTimeLimit) struct WorkerDrainTests {
    /// `a` runs until the file `go` appears; `b` needs it.
    static let workflow = """
        version: 1
        jobs:
          a: touch a.started; while [ ! -e go ]; do sleep 0.02; done; touch a.done
          b:
            needs: [a]
            run: touch b.done
        """

    @Test func sigtermDrainsTheRunningCommandAndClaimsNothingMore() async throws {
        let cli = try CLI()
        let (worker, submitter) = try await Self.drainingWhileARuns(cli)
        defer { if submitter.0.isRunning { kill(submitter.0.processIdentifier, SIGKILL) } }
        // The command goes on: it ends when told to, not when the worker was.
        #expect(worker.0.isRunning, "the worker waits for its running command")
        _ = try cli.write("go", "")
        let result = try await cli.finish(worker.0, worker.1, worker.2)
        #expect(result.status == 130, "\(result.output)")
        #expect(cli.read("a.done") != nil, "the running command finished")
        #expect(cli.read("b.done") == nil, "nothing claimed once draining")
        try await Self.anotherWorkerFinishes(cli, submitter)
    }

    @Test func aSecondSignalWhileDrainingStopsTheCommandAndItsJobGoesBack() async throws {
        let cli = try CLI()
        let (worker, submitter) = try await Self.drainingWhileARuns(cli)
        defer { if submitter.0.isRunning { kill(submitter.0.processIdentifier, SIGKILL) } }
        kill(worker.0.processIdentifier, SIGTERM)
        let result = try await cli.finish(worker.0, worker.1, worker.2, limit: .seconds(30))
        #expect(result.status == 130, "\(result.output)")
        #expect(cli.read("a.done") == nil, "stopped before it finished")
        // Its job went back: the next worker runs it, and the run succeeds.
        try FileManager.default.removeItem(atPath: cli.path("a.started"))
        _ = try cli.write("go", "")
        try await Self.anotherWorkerFinishes(cli, submitter)
    }

    /// A worker with `--drain` and a submitter of the workflow; once `a` runs, the worker is
    /// sent SIGTERM and has said that it drains.
    static func drainingWhileARuns(_ cli: CLI) async throws -> (worker: (Process, Pipe, Pipe), submitter: (Process, Pipe, Pipe)) {
        try cli.write("sequencer.yml", workflow)
        let worker = try cli.start(["worker", "--queue", cli.path("q.sqlite"), "--drain", "60s"])
        let submitter = try cli.start(["run", "--queue", cli.path("q.sqlite")])
        #expect(await eventually { cli.read("a.started") != nil })
        kill(worker.0.processIdentifier, SIGTERM)
        let said = await read(worker.2, until: "SIGTERM: draining")
        #expect(said.contains("SIGTERM: draining"), "\(said)")
        return (worker, submitter)
    }

    /// Another worker takes what was left, and the submitted run succeeds.
    static func anotherWorkerFinishes(_ cli: CLI, _ submitter: (Process, Pipe, Pipe)) async throws {
        let next = try cli.start(["worker", "--queue", cli.path("q.sqlite")])
        // The run ends once the next worker recorded b (stopping it sooner would give b back).
        let submitted = try await cli.finish(submitter.0, submitter.1, submitter.2)
        #expect(submitted.status == 0, "\(submitted.output)")
        #expect(cli.read("b.done") != nil)
        _ = try await cli.stopWorker(next)
    }

    /// What the process writes to `pipe` until it has written `text` (or ended).
    static func read(_ pipe: Pipe, until text: String) async -> String {
        await onThread {
            var read = Data()
            while !String(decoding: read, as: UTF8.self).contains(text) {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                read += chunk
            }
            return String(decoding: read, as: UTF8.self)
        }
    }
}
