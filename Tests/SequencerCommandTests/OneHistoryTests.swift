import Foundation
import PostgresTestSupport
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// One history: a file run here (the journal) and the same file run through a queue (SQLite or
/// PostgreSQL) are listed and shown alike, in the same words and with the same counts.
@Suite(.suiteTimeLimit) struct OneHistoryTests {
    static let file = """
        version: 1
        jobs:
          made: { run: echo made > made.txt, outputs: [made.txt] }
          plain: echo plain
          broken: { run: echo broken; exit 3 }
          after: { needs: [broken], run: echo never }
          slow: { run: sleep 5, timeout: 300ms }
        """

    /// The second run of each: `made` up to date, `broken` failed, `after` skipped, `slow`
    /// timed out; `show --json` and `runs --json` agree between the journal and the queue.
    @Test(arguments: QueueKind.testable)
    func aRunHereAndARunThroughAQueueAreShownAlike(_ kind: QueueKind) async throws {
        let cli = try CLI()
        try await kind.withQueue(in: cli) { queue in
            try cli.write("sequencer.yml", Self.file)
            for _ in 0..<2 { #expect(try await cli.run(["run", "--keep-going"]).status == 1) }
            let worker = try cli.start(["worker", "--queue", queue, "-j", "4"])
            for _ in 0..<2 { #expect(try await cli.run(["run", "--queue", queue]).status == 1) }
            _ = try await cli.stopWorker(worker)

            let local = try await document(cli, ["show", "2", "--json"])
            let queued = try await document(cli, ["show", "2", "--json", "--queue", queue])
            let statuses = ["made": "upToDate", "plain": "succeeded", "broken": "failed", "after": "skipped", "slow": "timedOut"]
            #expect(Self.statuses(local) == statuses, "\(local)")
            #expect(Self.statuses(queued) == statuses, "\(queued)")
            let counted = ["jobs", "succeeded", "upToDate", "failed", "timedOut", "cancelled", "skipped", "unfinished"]
            let localRun = try #require(local["run"] as? [String: Any])
            let queuedRun = try #require(queued["run"] as? [String: Any])
            #expect(counted.map { localRun[$0] as? Int } == [5, 1, 1, 1, 1, 0, 1, 0], "\(localRun)")
            #expect(counted.map { queuedRun[$0] as? Int } == counted.map { localRun[$0] as? Int }, "\(queuedRun)")
            #expect(localRun["state"] as? String == "failed" && queuedRun["state"] as? String == "failed")
            // The same keys, but for where a queue's run came from and which worker ran a job.
            #expect(Set(queuedRun.keys).subtracting(["origin"]) == Set(localRun.keys))

            let listed = try await cli.run(["runs", "--json", "--queue", queue])
            let runs = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(counted.map { runs.first?[$0] as? Int } == counted.map { queuedRun[$0] as? Int }, "\(listed.stdout)")
            let table = try await cli.run(["runs", "--queue", queue])
            let row = table.stdout.split(separator: "\n").dropFirst().first.map { $0.split(separator: " ").map(String.init) }
            // RUN STATE STARTED (2 words) TIME JOBS OK UP-TO-DATE FAILED CANCELLED SKIPPED WORKFLOW
            #expect(row.map { Array($0[5...10]) } == ["5", "1", "1", "2", "0", "1"], "\(table.stdout)")
        }
    }

    private func document(_ cli: CLI, _ arguments: [String]) async throws -> [String: Any] {
        let result = try await cli.run(arguments)
        #expect(result.status == 0, "\(result.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    static func statuses(_ document: [String: Any]) -> [String: String] {
        let jobs = document["jobs"] as? [[String: Any]] ?? []
        return Dictionary(jobs.map { ($0["name"] as? String ?? "", $0["status"] as? String ?? "") }) { first, _ in first }
    }
}
