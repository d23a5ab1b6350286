import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// `RunOptions.readyOrder`: which ready job a free worker takes.
@Suite(.suiteTimeLimit)
struct ReadyOrderTests {
    /// x, then y (needs x), z and w, one at a time: y becomes ready when x ends, after z and w.
    func startOrder(_ order: RunOptions.ReadyOrder) async throws -> [String] {
        let started = Locked<[String]>([])
        var workflow = Workflow()
        for (name, needs) in [("x", []), ("y", ["x"]), ("z", []), ("w", [])] as [(String, [JobID])] {
            try workflow.add(JobID(name), needs: needs) { _ in started.withLock { $0.append(name) } }
        }
        var options = RunOptions(maxConcurrency: 1)
        options.readyOrder = order
        let report = await (try workflow.start(options)).report()
        #expect(report.status == .succeeded)
        return started.withLock { $0 }
    }

    @Test func theJobThatBecameReadyFirstStartsFirstByDefault() async throws {
        #expect(try await startOrder(.firstReady) == ["x", "z", "w", "y"])
    }

    /// As ninja starts the lowest-numbered of its ready edges.
    @Test func withFirstAddedTheJobAddedFirstStartsFirst() async throws {
        #expect(try await startOrder(.firstAdded) == ["x", "y", "z", "w"])
    }
}
