import Foundation
import Sequencer
import SequencerProcess
@testable import SequencerWorkflowFile

/// Workflow files, runs and attempt records for the output format tests.
enum OutputFixture {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "exit code 1" }
    }

    /// The design's example, trimmed: a lane of width 2 and three jobs.
    static let example = """
        version: 1
        lanes:
          network: 2
        jobs:
          splash: ./scripts/splash.sh
          fetch-config:
            needs: [splash]
            run: curl -sf https://example.invalid/config > config.json
            lane: network
          whats-new:
            needs: [fetch-config, splash]
            run: ./scripts/whats-new.sh
        """

    static func file(_ yaml: String, path: String = "/work/demo/sequencer.yml") throws -> WorkflowFile {
        try WorkflowFile.parse(yaml, path: path)
    }

    /// Runs no-op jobs shaped like the file's (same names, needs, lanes, priorities), the jobs
    /// named in `failing` throwing, and returns the report.
    static func run(
        _ file: WorkflowFile, failing: Set<String> = [], keepGoing: Bool = false, maxConcurrency: Int = 4
    ) async throws -> RunReport {
        var workflow = Workflow()
        for lane in file.lanes { workflow.lane(lane.name, width: lane.width, ordered: lane.ordered) }
        for job in file.jobs {
            let fails = failing.contains(job.name)
            try workflow.add(
                JobID(job.name), needs: job.needs.map { JobID($0.name) }, lane: job.lane, priority: job.priority
            ) { _ in
                if fails { throw Failure() }
            }
        }
        let run = try workflow.start(RunOptions(maxConcurrency: maxConcurrency, keepGoing: keepGoing))
        return await run.report()
    }

    /// An attempt from `from` to `to` milliseconds after the run's start.
    static func attempt(
        _ job: String, _ attempt: Int = 1, from: Int, to: Int, exit: ProcessExit? = .exited(0),
        startError: String? = nil
    ) -> AttemptRecord {
        AttemptRecord(
            job: job, attempt: attempt, startedAt: .milliseconds(from), endedAt: .milliseconds(to), exit: exit,
            startError: startError, outputPath: "/work/demo/.sequencer/logs/\(job).\(attempt).log")
    }

    /// Parses JSON text back into Foundation values.
    static func object(_ text: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let object = value as? [String: Any] else { throw Malformed(text: text) }
        return object
    }

    struct Malformed: Error { var text: String }
}
