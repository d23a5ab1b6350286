import SequencerTestHelpers
import SequencerTestSupport
import Foundation
import Sequencer
import SequencerOutput
@testable import SequencerWorkflowFile
import Testing

@Suite struct OutputTraceTests {
    typealias Fixture = OutputFixture

    @Test func oneJobIsExactly() async throws {
        let file = try Fixture.file("jobs:\n  a: make\n", path: "w.yml")
        let report = try await Fixture.run(file)
        #expect(report.criticalPath == ["a"])
        let trace = ChromeTrace(file: file, report: report, attempts: [
            AttemptRecord(job: "a", attempt: 1, startedAt: .microseconds(1500), endedAt: .milliseconds(4),
                          exit: .exited(0), startError: nil, outputPath: "a.log"),
        ])
        #expect(trace.json() == """
            {"displayTimeUnit":"ms","traceEvents":[\
            {"args":{"name":"sequencer: w.yml"},"name":"process_name","ph":"M","pid":1,"tid":0},\
            {"args":{"name":"critical path"},"name":"thread_name","ph":"M","pid":1,"tid":1},\
            {"args":{"sort_index":0},"name":"thread_sort_index","ph":"M","pid":1,"tid":1},\
            {"args":{"name":"jobs 1"},"name":"thread_name","ph":"M","pid":1,"tid":2},\
            {"args":{"sort_index":1},"name":"thread_sort_index","ph":"M","pid":1,"tid":2},\
            {"args":{"attempts":1,"command":"make","critical":true,"job":"a","status":"succeeded"},\
            "cat":"critical","cname":"terrible","dur":2500,"name":"a","ph":"X","pid":1,"tid":1,"ts":1500},\
            {"args":{"attempt":1,"command":"make","critical":true,"exit":"exit code 0","job":"a",\
            "output":"a.log","status":"succeeded"},\
            "cat":"job","cname":"terrible","dur":2500,"name":"a","ph":"X","pid":1,"tid":2,"ts":1500}]}

            """)
    }

    @Test func attemptsGoOnTheFirstFreeSlotOfTheirLane() async throws {
        let file = try Fixture.file("""
            lanes:
              network: 2
              disk: 1
            jobs:
              a: { run: get a, lane: network }
              b: { run: get b, lane: network }
              c: { run: get c, lane: network }
              d: { run: write, lane: disk }
              e: { run: cc e }
              f: { run: cc f }
            """)
        let report = try await Fixture.run(file)
        let trace = try OutputTraceCheck(ChromeTrace(file: file, report: report, attempts: [
            Fixture.attempt("c", from: 60, to: 120),   // in any order
            Fixture.attempt("a", from: 0, to: 100),
            Fixture.attempt("b", from: 10, to: 50),
            Fixture.attempt("d", from: 5, to: 30),
            Fixture.attempt("e", from: 0, to: 40),
            Fixture.attempt("f", from: 20, to: 80),
            Fixture.attempt("e", 2, from: 40, to: 90),
        ]).json())

        #expect(trace.slices(on: "network 1").map(\.name) == ["a"])
        #expect(trace.slices(on: "network 2").map(\.name) == ["b", "c"])
        #expect(trace.slices(on: "disk 1").map(\.name) == ["d"])
        #expect(trace.slices(on: "jobs 1").map(\.name) == ["e", "e"])
        #expect(trace.slices(on: "jobs 2").map(\.name) == ["f"])
        // Lanes keep their file order below the unlaned jobs, under the critical path.
        let order = trace.trackOrder.filter { $0 != "critical path" }
        #expect(order == ["jobs 1", "jobs 2", "network 1", "network 2", "disk 1"])
        #expect(trace.trackOrder.first == (report.criticalPath.isEmpty ? "jobs 1" : "critical path"))
        #expect(trace.processName == "sequencer: /work/demo/sequencer.yml")

        let c = try #require(trace.slices(on: "network 2").last)
        #expect(c.ts == 60_000 && c.dur == 60_000)
        #expect(c.args["job"] as? String == "c")
        #expect(c.args["attempt"] as? Int == 1)
        #expect(c.args["command"] as? String == "get c")
        #expect(c.args["status"] as? String == "succeeded")
        #expect(c.args["exit"] as? String == "exit code 0")
        #expect(c.args["output"] as? String == "/work/demo/.sequencer/logs/c.1.log")
    }

    @Test func theCriticalPathHasItsOwnTrackOnTopAndIsHighlighted() async throws {
        let file = try Fixture.file("""
            jobs:
              lint: { run: lint, priority: user-interactive }
              a: make a
              b: { run: make b, needs: [a] }
              c: { run: make c, needs: [b] }
            """)
        // One job at a time, lint first: c ends last, and the path back from it is c, b, a, and
        // lint, which held the only worker while a was ready.
        let report = try await Fixture.run(file, maxConcurrency: 1)
        #expect(report.criticalPath == ["lint", "a", "b", "c"])
        let trace = try OutputTraceCheck(ChromeTrace(file: file, report: report, attempts: [
            Fixture.attempt("lint", from: 0, to: 5),
            Fixture.attempt("a", from: 5, to: 10),
            Fixture.attempt("b", from: 10, to: 12, exit: .exited(1)),
            Fixture.attempt("b", 2, from: 15, to: 20),
            Fixture.attempt("c", from: 20, to: 30),
        ]).json())

        #expect(trace.trackOrder.first == "critical path")
        let path = trace.slices(on: "critical path")
        #expect(path.map(\.name) == ["lint", "a", "b", "c"])
        // A job's slice on the path spans all its attempts, the wait between them included.
        #expect(path.map(\.ts) == [0, 5000, 10_000, 20_000])
        #expect(path.map(\.end) == [5000, 10_000, 20_000, 30_000])
        #expect(path.map { $0.args["attempts"] as? Int } == [1, 1, 2, 1])
        // a was ready at once and waited for the worker that lint held.
        #expect((path[1].args["waited"] as? String)?.hasSuffix("s for a worker held by 'lint'") == true)
        #expect(path.map { $0.args["waited"] == nil } == [true, false, true, true])
        #expect(path.allSatisfy { $0.args["critical"] as? Bool == true && $0.cname != nil })

        let jobs = trace.slices(on: "jobs 1")
        #expect(jobs.map(\.name) == ["lint", "a", "b", "b", "c"])
        for slice in jobs {
            #expect(slice.args["critical"] as? Bool == true, "\(slice.name)")
            #expect(slice.cname != nil, "\(slice.name)")
        }
        // A job off the path is not highlighted.
        let offPath = try OutputTraceCheck(ChromeTrace(
            file: file, attempts: [Fixture.attempt("lint", from: 0, to: 5), Fixture.attempt("a", from: 5, to: 10)],
            statuses: [:], criticalPath: CriticalPath.steps(of: [.init(id: "a", startedAt: .zero, endedAt: .seconds(1))])).json())
        for slice in offPath.slices(on: "jobs 1") {
            #expect((slice.args["critical"] as? Bool == true) == (slice.name == "a"), "\(slice.name)")
            #expect((slice.cname != nil) == (slice.name == "a"), "\(slice.name)")
        }
        #expect(jobs.map { $0.args["exit"] as? String }[2] == "exit code 1")
        #expect(jobs.map { $0.args["attempt"] as? Int } == [1, 1, 1, 2, 1])
    }

    @Test func jobsThatNeverStartedHaveNoSlices() async throws {
        let file = try Fixture.file("""
            jobs:
              a: make a
              b: { run: make b, needs: [a] }
            """)
        let report = try await Fixture.run(file, failing: ["a"])
        #expect(report.outcome(of: "b")?.status == .skipped)
        let trace = try OutputTraceCheck(ChromeTrace(file: file, report: report, attempts: [
            Fixture.attempt("a", from: 0, to: 7, exit: .exited(2)),
        ]).json())
        #expect(trace.slices.filter { $0.name == "b" }.isEmpty)
        let a = try #require(trace.slices(on: "jobs 1").first)
        #expect(a.args["status"] as? String == "failed")
        #expect(a.args["exit"] as? String == "exit code 2")
    }

    @Test func exitsAreDescribedInWords() {
        #expect(Fixture.attempt("a", from: 0, to: 1, exit: .exited(3)).exitSummary == "exit code 3")
        #expect(Fixture.attempt("a", from: 0, to: 1, exit: .signaled(15)).exitSummary == "killed by SIGTERM")
        #expect(Fixture.attempt("a", from: 0, to: 1, exit: .signaled(9)).exitSummary == "killed by SIGKILL")
        #expect(Fixture.attempt("a", from: 0, to: 1, exit: .signaled(77)).exitSummary == "killed by signal 77")
        #expect(Fixture.attempt("a", from: 0, to: 1, exit: nil, startError: "no such program 'mak'")
            .exitSummary == "could not start: no such program 'mak'")
        #expect(Fixture.attempt("a", from: 0, to: 1, exit: nil).exitSummary == "could not start")
    }

    @Test func attemptsOfJobsTheFileDoesNotHaveStillLoad() async throws {
        let file = try Fixture.file("jobs:\n  a: make\n")
        let report = try await Fixture.run(file)
        let trace = try OutputTraceCheck(ChromeTrace(file: file, report: report, attempts: [
            Fixture.attempt("ghost", from: 0, to: 3),
            Fixture.attempt("a", from: 1, to: 2),
            // Ends before it starts: drawn with no length rather than a negative one.
            Fixture.attempt("a", 2, from: 9, to: 8),
        ]).json())
        let ghost = try #require(trace.slices.first { $0.name == "ghost" })
        #expect(ghost.args["status"] as? String == "unknown")
        #expect(ghost.args["command"] == nil)
        #expect(trace.slices.contains { $0.name == "a" && $0.ts == 9000 && $0.dur == 0 })
    }

    @Test func aLaneNamedJobsDoesNotShareTrackNames() async throws {
        let file = try Fixture.file("""
            lanes:
              jobs: 1
            jobs:
              a: { run: a, lane: jobs }
              b: b
            """)
        let report = try await Fixture.run(file)
        let trace = try OutputTraceCheck(ChromeTrace(file: file, report: report, attempts: [
            Fixture.attempt("a", from: 0, to: 3), Fixture.attempt("b", from: 0, to: 3),
        ]).json())
        #expect(trace.slices(on: "jobs 1").map(\.name) == ["a"])
        #expect(trace.slices(on: "unlaned jobs 1").map(\.name) == ["b"])
    }

    @Test func anEmptyRunIsAValidTrace() async throws {
        let file = try Fixture.file("jobs:\n  a: make\n")
        let report = try await Fixture.run(file)
        let trace = try OutputTraceCheck(ChromeTrace(file: file, report: report, attempts: []).json())
        // The critical path falls back to the report's times for a job without attempts.
        #expect(trace.slices.map(\.name) == ["a"])
        #expect(trace.trackOrder == ["critical path"])
    }

    /// Random lanes, each filled by as many back-to-back sequences of attempts as its width:
    /// no track overlaps, a lane never needs more tracks than its width, and the trace is the
    /// same whatever order the attempts come in.
    @Test(arguments: 1...8)
    func packingNeverOverlapsOrExceedsTheLaneWidth(seed: UInt64) async throws {
        var random = SplitMix64(state: seed)
        let widths = (0..<Int.random(in: 1...4, using: &random)).map { _ in Int.random(in: 1...4, using: &random) }
        var yaml = "lanes:\n" + widths.enumerated().map { "  l\($0): \($1)\n" }.joined() + "jobs:\n"
        var attempts: [AttemptRecord] = []
        var job = 0
        for (lane, width) in widths.enumerated() {
            for _ in 0..<width {
                var time = Int.random(in: 0...20, using: &random)
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let name = "job\(job)"
                    job += 1
                    yaml += "  \(name): { run: echo \(name), lane: l\(lane) }\n"
                    let tries = Int.random(in: 1...2, using: &random)
                    for attempt in 1...tries {
                        let end = time + Int.random(in: 0...30, using: &random)
                        attempts.append(Fixture.attempt(name, attempt, from: time, to: end,
                                                        exit: .exited(attempt == tries ? 0 : 1)))
                        time = end + Int.random(in: 0...5, using: &random)
                    }
                }
            }
        }
        let file = try Fixture.file(yaml)
        let report = try await Fixture.run(file)
        let text = ChromeTrace(file: file, report: report, attempts: attempts).json()
        let trace = try OutputTraceCheck(text)
        #expect(trace.slices.filter { trace.tracks[$0.tid] != "critical path" }.count == attempts.count)
        for (lane, width) in widths.enumerated() {
            let tracks = Set(trace.tracks.values.filter { $0.hasPrefix("l\(lane) ") })
            #expect(tracks.count <= width, "lane l\(lane) of width \(width) has \(tracks.count) tracks")
        }
        #expect(ChromeTrace(file: file, report: report, attempts: attempts.shuffled(using: &random)).json() == text)
    }
}
