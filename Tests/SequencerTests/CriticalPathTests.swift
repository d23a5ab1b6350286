import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The critical path explains the wall time: a job's predecessor is the need that ended last,
/// or, when it waited for a worker or lane slot after its needs had ended, the job whose end
/// freed that slot. Up-to-date jobs take no time on it.
@Suite(.suiteTimeLimit) struct CriticalPathTests {
    typealias Job = CriticalPath.Job

    static func job(
        _ id: JobID, _ start: Int?, _ end: Int?, needs: [JobID] = [], lane: String? = nil, parent: JobID? = nil,
        upToDate: Bool = false
    ) -> Job {
        Job(id: id, needs: needs, lane: lane, parent: parent, startedAt: start.map { .seconds($0) },
            endedAt: end.map { .seconds($0) }, tookNoTime: upToDate)
    }

    // MARK: - Hand-made schedules

    /// The zstd case at -j1: prepare (0-1), the long compile (1-7), a short compile that was
    /// ready at 1 but waited for the worker until 7, link, test. The old rule followed needs
    /// only and named prepare -> short -> link -> test (4 s of 10).
    @Test func aJobThatWaitedForAWorkerFollowsTheJobThatFreedIt() {
        let steps = CriticalPath.steps(of: [
            Self.job("prepare", 0, 1),
            Self.job("long", 1, 7, needs: ["prepare"]),
            Self.job("short", 7, 8, needs: ["prepare"]),
            Self.job("link", 8, 9, needs: ["long", "short"]),
            Self.job("test", 9, 10, needs: ["link"]),
        ])
        #expect(steps.map(\.job) == ["prepare", "long", "short", "link", "test"])
        let short = steps[2]
        #expect(short.wait == .slot(freedBy: "long", lane: nil))
        #expect(short.readyAt == .seconds(1) && short.queued == .seconds(6))
        #expect(steps[3].wait == .none && steps[3].queued == .zero)
    }

    /// Two jobs of a width-1 lane, the second ready at once: it waited for the lane, which the
    /// first freed. A job of another lane that ended at the same moment is not chosen.
    @Test(arguments: [false, true])
    func aJobThatWaitedForItsLaneFollowsTheLaneMateThatFreedIt(otherFirst: Bool) {
        var jobs = [
            Self.job("l1", 0, 5, lane: "disk"),
            Self.job("l2", 5, 6, lane: "disk"),
        ]
        let other = Self.job("other", 0, 5, lane: "net")
        if otherFirst { jobs.insert(other, at: 0) } else { jobs.append(other) }
        let steps = CriticalPath.steps(of: jobs)
        #expect(steps.map(\.job) == ["l1", "l2"])
        #expect(steps[1].wait == .slot(freedBy: "l1", lane: "disk"))
    }

    /// Up-to-date jobs take no time on the path and are never on it, even when one ended last
    /// (a failed run named an up-to-date job).
    @Test func upToDateJobsAreNotOnThePath() {
        let steps = CriticalPath.steps(of: [
            Self.job("gen", 0, 3),
            Self.job("fresh", 3, 3, needs: ["gen"], upToDate: true),
            Self.job("use", 3, 5, needs: ["fresh"]),
            Self.job("late-fresh", 5, 5, needs: ["use"], upToDate: true),
        ])
        #expect(steps.map(\.job) == ["gen", "use"])
        #expect(CriticalPath.steps(of: [Self.job("a", 0, 0, upToDate: true)]).isEmpty)
    }

    /// An up-to-date job holds no slot: the job that waited behind it follows the job that
    /// really freed the worker.
    @Test func anUpToDateJobNeverFreesASlot() {
        let steps = CriticalPath.steps(of: [
            Self.job("slow", 0, 4),
            Self.job("fresh", 4, 4, upToDate: true),
            Self.job("next", 4, 6),
        ])
        #expect(steps.map(\.job) == ["slow", "next"])
        #expect(steps[1].wait == .slot(freedBy: "slow", lane: nil))
    }

    /// A job that was ready and started with no job ending in between did not wait for a
    /// slot: the gap is the scheduler's latency, and its predecessor is its last need.
    @Test func aGapWithNoEndInItIsNotASlotWait() {
        let steps = CriticalPath.steps(of: [
            Self.job("a", 0, 2),
            Self.job("side", 0, 1),
            Self.job("b", 3, 4, needs: ["a"]),
        ])
        #expect(steps.map(\.job) == ["a", "b"])
        #expect(steps[1].wait == .none && steps[1].queued == .seconds(1))
    }

    /// A child started after its parent started; with no needs, its predecessor is its parent.
    @Test func aChildFollowsItsParent() {
        let steps = CriticalPath.steps(of: [
            Self.job("first", 0, 2),
            Self.job("parent", 2, 3, needs: ["first"]),
            Self.job("child", 2, 9, parent: "parent"),
        ])
        #expect(steps.map(\.job) == ["first", "parent", "child"])
    }

    @Test func nothingStartedMeansNoPath() {
        #expect(CriticalPath.steps(of: []).isEmpty)
        #expect(CriticalPath.steps(of: [Self.job("a", nil, nil)]).isEmpty)
    }

    // MARK: - Every list schedule

    /// Random graphs of up to 10 jobs (some up to date, taking no time), run by a list scheduler
    /// with 1-3 workers and a width-1 lane: the path tiles the run's wall time exactly. It starts
    /// at 0, each job starts when the one before it ended, and the last ends when the run does.
    @Test(arguments: 0..<400)
    func thePathTilesTheWallTimeOfEveryListSchedule(seed: Int) throws {
        var random = SplitMix64(state: UInt64(seed))
        let count = 1 + random.below(10)
        let workers = 1 + random.below(3)
        var jobs: [SimulatedJob] = []
        for index in 0..<count {
            var needs: [Int] = []
            for _ in 0..<min(random.below(3), index) {
                let need = random.below(index)
                if !needs.contains(need) { needs.append(need) }
            }
            let upToDate = random.below(5) == 0
            jobs.append(SimulatedJob(
                needs: needs, duration: upToDate ? 0 : 1 + random.below(4), inLane: random.below(3) == 0, upToDate: upToDate))
        }
        let schedule = Self.simulate(jobs, workers: workers)
        let input = jobs.indices.map { index in
            Job(id: JobID("j\(index)"), needs: jobs[index].needs.map { JobID("j\($0)") },
                lane: jobs[index].inLane ? "serial" : nil, startedAt: .seconds(schedule[index].start),
                endedAt: .seconds(schedule[index].end), tookNoTime: jobs[index].upToDate)
        }
        let steps = CriticalPath.steps(of: input)
        let makespan = schedule.map(\.end).max() ?? 0
        let ranAny = jobs.contains { !$0.upToDate }
        #expect(steps.isEmpty == !ranAny, "\(jobs) \(schedule)")
        guard let first = steps.first, let last = steps.last else { return }
        #expect(first.startedAt == .zero, "\(steps) \(jobs) \(schedule)")
        #expect(last.endedAt == .seconds(makespan), "\(steps) \(jobs) \(schedule)")
        for (before, after) in zip(steps, steps.dropFirst()) {
            #expect(after.startedAt == before.endedAt, "\(steps) \(jobs) \(schedule)")
        }
        let ran = steps.reduce(Duration.zero) { $0 + ($1.endedAt - $1.startedAt) }
        #expect(ran == .seconds(makespan))
    }

    struct SimulatedJob: CustomStringConvertible {
        var needs: [Int]
        var duration: Int
        var inLane: Bool
        var upToDate: Bool
        var description: String { "needs \(needs) for \(duration)s\(inLane ? " in lane" : "")\(upToDate ? " (up to date)" : "")" }
    }

    /// A list scheduler on whole seconds: at each moment, the jobs that end then end, then ready
    /// jobs start in order while a worker (and, for lane jobs, the lane) is free; jobs that take
    /// no time end at once, which may start more at the same moment.
    static func simulate(_ jobs: [SimulatedJob], workers: Int) -> [(start: Int, end: Int)] {
        var times = [(start: Int, end: Int)?](repeating: nil, count: jobs.count)
        var time = 0
        while times.contains(where: { $0 == nil }) {
            var started = true
            while started {
                started = false
                let busy = times.filter { $0.map { $0.start <= time && $0.end > time } ?? false }.count
                let laneBusy = jobs.indices.contains { jobs[$0].inLane && (times[$0].map { $0.end > time } ?? false) }
                for index in jobs.indices where times[index] == nil {
                    let ready = jobs[index].needs.allSatisfy { times[$0].map { $0.end <= time } ?? false }
                    guard ready, busy < workers, !(jobs[index].inLane && laneBusy) else { continue }
                    times[index] = (time, time + jobs[index].duration)
                    started = true
                    break
                }
            }
            let next = times.compactMap { $0?.end }.filter { $0 > time }.min()
            guard let next else { break }
            time = next
        }
        return times.map { $0 ?? (0, 0) }
    }

    // MARK: - Runs on a manual clock

    /// The same schedule run for real at maxConcurrency 1: "short" is ready when prepare ends,
    /// and waits for the worker that "long" holds.
    @Test(arguments: 0..<5)
    func aRunReportsTheJobThatHeldTheWorker(iteration: Int) async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        try workflow.add("prepare") { _ in clock.advance(by: .seconds(1)) }
        try workflow.add("long", needs: ["prepare"]) { _ in clock.advance(by: .seconds(6)) }
        try workflow.add("short", needs: ["prepare"]) { _ in clock.advance(by: .seconds(1)) }
        try workflow.add("link", needs: ["long", "short"]) { _ in clock.advance(by: .seconds(1)) }
        let report = try await workflow.start(RunOptions(maxConcurrency: 1, clock: clock)).report()
        #expect(report.duration == .seconds(9))
        #expect(report.criticalPath == ["prepare", "long", "short", "link"])
        let steps = report.criticalPathSteps
        #expect(steps.map(\.wait) == [.none, .none, .slot(freedBy: "long", lane: nil), .none])
        #expect(steps[2].queued == .seconds(6))
    }

    /// A job that marks itself up to date is not on a run's path, even when it ends last.
    @Test func aRunLeavesUpToDateJobsOffThePath() async throws {
        let clock = ManualClock()
        var workflow = Workflow()
        try workflow.add("build") { _ in clock.advance(by: .seconds(2)) }
        try workflow.add("fresh", needs: ["build"]) { ctx in ctx.markUpToDate() }
        let report = try await workflow.start(RunOptions(maxConcurrency: 1, clock: clock)).report()
        #expect(report.outcome(of: "fresh")?.status == .upToDate)
        #expect(report.outcome(of: "fresh")?.error == nil)
        #expect(report.count(.upToDate) == 1 && report.count(.skipped) == 0 && report.count(.succeeded) == 1)
        #expect(report.criticalPath == ["build"])
    }
}
