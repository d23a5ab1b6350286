import Foundation
import SequencerHistory
import SequencerJournal
import SequencerQueue
import SequencerRunner
import Testing
import SequencerTestHelpers

/// One runner, two ways: a workflow file run here (recorded in the journal) and the same file
/// run through a durable queue (SQLite or PostgreSQL) leave the same history: the same jobs in
/// the same states, the same attempts with the same exits and output, the same counts.
@Suite(.suiteTimeLimit) struct OneRunnerTests {
    static let file = """
        version: 1
        jobs:
          made: { run: echo made > made.txt, outputs: [made.txt] }
          used: { needs: [made], run: cat made.txt > used.txt, inputs: [made.txt], outputs: [used.txt] }
          plain: echo plain
          broken: { run: echo broken; exit 3 }
          after: { needs: [broken], run: echo never }
        """

    /// Two runs each way: the first runs every job, the second finds `made` and `used` up to
    /// date; `broken` fails both times, and `after` is skipped.
    @Test(arguments: StoreKind.testable)
    func aRunHereAndARunThroughAQueueLeaveTheSameRecords(_ kind: StoreKind) async throws {
        let fixture = try RunnerFixture(file: Self.file)
        let here = [try await fixture.runHere(), try await fixture.runHere()]
        #expect(here.map { $0.report?.status } == [.failed, .failed], "\(fixture.said.withLock { $0 })")
        let local = JournalHistory(journal: fixture.journal)
        try await kind.withStore(in: fixture.directory) { store, location in
            let through = try await fixture.runThrough(store, location: location, runs: 2)
            #expect(through.map(\.error) == [.failed, .failed], "\(fixture.said.withLock { $0 })")
            let queued = QueueHistory(store: store, location: location)
            let ended = try await Self.expectSameRecords(here.map(\.id), local, through.map(\.id), queued)
            #expect(ended == [.failed, .failed])
            let second = try #require(try await queued.run(through[1].id))
            let states = Dictionary(uniqueKeysWithValues: second.jobs.map { ($0.name, $0.state) })
            #expect(states == ["made": .upToDate, "used": .upToDate, "plain": .succeeded, "broken": .failed, "after": .skipped])
        }
    }

    /// A file whose every job has outputs: its second run here ends before it starts (every
    /// job up to date, decided in one pass), and through the queue each job is checked by the
    /// worker; both record every job up to date, with no attempt.
    @Test(arguments: StoreKind.testable)
    func aRunOfJobsAllUpToDateIsRecordedAlikeBothWays(_ kind: StoreKind) async throws {
        let fixture = try RunnerFixture(file: """
            version: 1
            jobs:
              made: { run: echo made > made.txt, outputs: [made.txt] }
              used: { needs: [made], run: cat made.txt > used.txt, inputs: [made.txt], outputs: [used.txt] }
            """)
        let here = [try await fixture.runHere(), try await fixture.runHere()]
        #expect(here[0].report?.status == .succeeded)
        #expect(here[1].report == nil, "the second run ended before it started: nothing to report")
        let local = JournalHistory(journal: fixture.journal)
        try await kind.withStore(in: fixture.directory) { store, location in
            let through = try await fixture.runThrough(store, location: location, runs: 2)
            #expect(through.map(\.error) == [nil, nil], "\(fixture.said.withLock { $0 })")
            let queued = QueueHistory(store: store, location: location)
            let ended = try await Self.expectSameRecords(here.map(\.id), local, through.map(\.id), queued)
            #expect(ended == [.succeeded, .succeeded])
            let second = try #require(try await queued.run(through[1].id))
            #expect(second.jobs.map(\.state) == [.upToDate, .upToDate] && second.attempts.isEmpty)

            // Each history hands back the fingerprints its runner wrote, alike: the same
            // commands and inputs give the same fingerprints, here and there.
            let file = fixture.here + "/sequencer.yml"
            let mine = try await local.fingerprints(workflow: local.workflow(ofFile: file), jobs: nil)
            let theirs = try await queued.fingerprints(workflow: queued.workflow(ofFile: fixture.there + "/sequencer.yml"), jobs: nil)
            #expect(Set(mine.keys) == ["made", "used"] && Set(theirs.keys) == ["made", "used"])
            #expect(mine.mapValues(\.fingerprint) == theirs.mapValues(\.fingerprint))
            let one = try await local.fingerprints(workflow: local.workflow(ofFile: file), jobs: ["used", "absent"])
            #expect(Array(one.keys) == ["used"] && one["used"] == mine["used"])
        }
    }

    /// The runner says what it does on the output it is given, and its errors are typed: a
    /// missing input stops the run before anything starts, with the reason, as a usage error.
    @Test func theRunnerSpeaksThroughItsOutputAndThrowsTypedErrors() async throws {
        let fixture = try RunnerFixture(file: """
            version: 1
            jobs:
              ok: echo fine
              reads: { run: cat absent.txt, inputs: [absent.txt] }
            """)
        await #expect(throws: RunnerError(.invalid, "1 error in \(fixture.here)/sequencer.yml: nothing ran")) {
            _ = try await fixture.runHere()
        }
        let said = fixture.said.withLock { $0 }
        #expect(said.contains { $0.contains("job 'reads' has input 'absent.txt', which does not exist") }, "\(said)")
        #expect(try fixture.journal.runIDs(workflow: fixture.here + "/sequencer.yml", limit: 5).isEmpty)

        try "version: 1\njobs:\n  ok: echo fine\n".write(toFile: fixture.here + "/sequencer.yml", atomically: true, encoding: .utf8)
        let (id, report) = try await fixture.runHere()
        #expect(report?.status == .succeeded)
        let lines = fixture.said.withLock { $0 }
        #expect(lines.contains("sequencer: run #\(id) of \(fixture.here)/sequencer.yml"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("sequencer: succeeded: 1 job in ") && $0.hasSuffix(": 1 succeeded") }, "\(lines)")
    }

    /// Expects each run of `mine` (in `local`) to have the same shape, counts and state as the
    /// run of `theirs` (in `queued`) at the same place; returns the runs' states (the queue's).
    static func expectSameRecords(
        _ mine: [Int64], _ local: any RunHistory, _ theirs: [Int64], _ queued: any RunHistory
    ) async throws -> [RunState] {
        var states: [RunState] = []
        for (hereID, queuedID) in zip(mine, theirs) {
            let here = try #require(try await local.run(hereID))
            let there = try #require(try await queued.run(queuedID))
            let (hereShape, queuedShape) = (try await Shape(here, local), try await Shape(there, queued))
            #expect(hereShape == queuedShape, "here:\n\(hereShape)\nthrough the queue:\n\(queuedShape)")
            #expect(here.run.counts == there.run.counts && here.run.state == there.run.state)
            states.append(there.run.state)
        }
        return states
    }

    /// What a run's record says that both ways must agree on: for each job, its state and
    /// attempts, and each attempt's exit and output. Times, workers and paths differ.
    struct Shape: Equatable, CustomStringConvertible {
        var jobs: [String: String]

        init(_ record: RunRecord, _ history: any RunHistory) async throws {
            var jobs: [String: String] = [:]
            for job in record.jobs {
                var text = "\(job.state.rawValue), \(job.attempts) attempt(s)"
                for attempt in record.attempts where attempt.job == job.name {
                    let printed: String
                    switch try await history.output(of: attempt, in: record, last: nil) {
                    case .nothing: printed = ""
                    case .gone(let why): printed = "gone: \(why)"
                    case .bytes(let data, _): printed = String(decoding: data, as: UTF8.self)
                    }
                    text += "; #\(attempt.attempt) \(attempt.exit) (\(attempt.exitCode.map(String.init) ?? "-")) printed \(printed.debugDescription)"
                }
                jobs[job.name] = text
            }
            self.jobs = jobs
        }

        var description: String { jobs.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n") }
    }
}
