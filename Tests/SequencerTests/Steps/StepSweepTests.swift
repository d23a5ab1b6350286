@testable import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Random workflows driven by random events, checked against the invariants after every step
/// (see ``StepDriver``); then the driver stops injecting events and lets everything running
/// end, and the run must end.
@Suite struct StepSweepTests {
    @Test(arguments: 0..<24)
    func randomEventsKeepTheInvariantsAndEveryRunEnds(batch: UInt64) throws {
        for seed in batch * 100..<(batch + 1) * 100 {
            if let failure = try Self.sweep(seed: seed) {
                Issue.record("seed \(seed): \(failure)")
                return
            }
        }
    }

    /// The same with batches: workers take up to 2 to 32 jobs in one step, go on with them
    /// without reporting, and have them taken back (see `SchedulerState+Batches.swift`).
    /// Fewer under the thread sanitizer (the sanitized build's flag): the sweep is one thread's
    /// logic, and its minutes there starved the suites beside it (CI run 59).
    static var batchSweeps: Range<UInt64> {
        #if SEQUENCER_PTHREAD_LOCK
        return 0..<4
        #else
        return 0..<48
        #endif
    }

    @Test(arguments: batchSweeps)
    func randomEventsWithBatchesKeepTheInvariantsAndEveryRunEnds(batch: UInt64) throws {
        for seed in batch * 100..<(batch + 1) * 100 {
            if let failure = try Self.sweep(seed: seed, batches: true) {
                Issue.record("seed \(seed), with batches: \(failure)")
                return
            }
        }
    }

    /// Seeds of wider sweeps (20,000 seeds) that found a hang: a child needs a job waiting in an
    /// ordered lane behind a job that needs the child's parent (see
    /// `StepFindingTests.aChildsNeedQueuedInAnOrderedLaneBehindAJobThatNeedsItsParentIsRejected`).
    @Test(arguments: [10629, 16663, 17960, 18915] as [UInt64])
    func seedsThatOnceHung(seed: UInt64) throws {
        if let failure = try Self.sweep(seed: seed) { Issue.record("seed \(seed): \(failure)") }
    }

    /// Runs one random workflow with random events, then drains it; returns what went wrong.
    static func sweep(seed: UInt64, batches: Bool = false) throws -> String? {
        var random = SplitMix64(state: seed)
        var run = try driver(&random, batches: batches)
        run.begin()
        var events = random.int(0...80)
        for _ in 0..<400 where events > 0 && run.problems.isEmpty && !run.scheduler.isFinished {
            if event(&run, &random) { events -= 1 }
        }
        run.drain()
        guard run.problems.isEmpty else { return "an invariant broke (recorded above)" }
        guard run.isFinished, run.workers.isEmpty, run.waiting.isEmpty else {
            let open = run.scheduler.jobs.numbers.filter { !run.scheduler.jobs[$0].phase.isTerminal }.map { job in
                let needs = run.scheduler.needs(of: job).map { run.scheduler.id(of: $0).description }
                let lane = run.scheduler.jobs[job].lane.map { " in \(run.scheduler.lanes[$0].name)" } ?? ""
                return "\(run.scheduler.id(of: job)) \(run.scheduler.jobs[job].phase)\(lane), needs \(needs)"
            }
            return "the run hangs: \(open.joined(separator: "; "))\nsteps:\n  \(run.log.joined(separator: "\n  "))"
        }
        return nil
    }

    /// Up to 10 jobs needing earlier ones, in up to 2 lanes, with priorities and shared keys.
    /// With `batches`, workers take batches: a batch's keyed jobs lead or join as they are taken.
    private static func driver(_ random: inout SplitMix64, batches: Bool = false) throws -> StepDriver {
        var workflow = Workflow()
        let lanes = (0..<random.int(0...2)).map { "lane\($0)" }
        for lane in lanes { workflow.lane(lane, width: random.int(1...2), ordered: random.chance(percent: 50)) }
        // With batches, wider: a batch takes a share of the ready queue, so it needs a deep one.
        let count = batches ? random.int(3...12) : random.int(1...10)
        for index in 0..<count {
            let needs = (0..<index).filter { _ in random.chance(percent: batches ? 8 : 20) }.map { JobID("j\($0)") }
            try workflow.add(
                JobID("j\(index)"), needs: needs,
                lane: !lanes.isEmpty && random.chance(percent: 40) ? random.pick(lanes) : nil,
                priority: random.pick(Priority.allCases),
                coalesce: random.chance(percent: 25) ? random.pick(["k0", "k1"]) : nil
            ) { _ in }
        }
        let batchLimit = batches ? random.pick([2, 3, 4, 32]) : 1
        return try StepDriver(
            workflow, maxConcurrency: batches ? random.int(1...2) : random.int(1...3), keepGoing: random.chance(percent: 50), batchLimit: batchLimit)
    }

    /// One random event, if it can happen now; returns whether it did.
    private static func event(_ run: inout StepDriver, _ random: inout SplitMix64) -> Bool {
        run.parksAtOnce = false
        run.registersAtOnce = false
        let active = run.active
        let jobs = Array(run.scheduler.jobs.numbers)
        let unfinished = jobs.filter { !run.scheduler.jobs[$0].phase.isTerminal }
        switch random.int(0...999) / 10 {
        case 0..<30:
            if run.scheduler.batchLimit > 1, random.chance(percent: 50), run.goOnOne(&random) { return true }
            return run.finishOne(&random)
        case 30..<37: return run.parkOne(&random)
        case 37..<40: return run.registerOne(&random)
        case 40..<47:
            // Half the time a child that has not started: its parent may be waiting for it.
            let pending = unfinished.filter { run.scheduler.isChild($0) && run.scheduler.jobs[$0].phase.isPending }
            guard let job = pick(random.chance(percent: 50) && !pending.isEmpty ? pending : unfinished, &random) else { return false }
            run.cancel(name(job, run))
        case 47..<52:
            guard let job = pick(jobs.filter { run.scheduler.jobs[$0].phase == .running }, &random) else { return false }
            run.timeOut(name(job, run))
        case 52..<60:
            guard let job = pick(run.graceList, &random) else { return false }
            run.abandon(name(job, run), began: random.chance(percent: 80))
        case 60..<64:
            guard let worker = pick(run.detached.filter(\.waits.isEmpty), &random), let job = worker.job else { return false }
            run.finishLate(name(job, run))
        case 64..<82:
            guard let worker = pick(active, &random), let parent = worker.job else { return false }
            let needs = (0..<random.int(0...2)).compactMap { _ in pick(jobs, &random).map { name($0, run) } }
            run.addChild(
                JobID("c\(run.scheduler.jobs.count)"), to: name(parent, run), needs: needs,
                lane: random.chance(percent: 30) ? pick(run.scheduler.lanes.map(\.name), &random) : nil,
                priority: random.pick(Priority.allCases),
                coalesce: random.chance(percent: 30) ? random.pick(["k0", "k1", "k2"]) : nil)
        case 82..<97:
            guard let worker = pick(active, &random), let parent = worker.job else { return false }
            let children = run.scheduler.children(of: parent)
            guard !children.isEmpty else { return false }
            let target = random.chance(percent: 50) ? pick(children, &random).map { name($0, run) } : nil
            run.wait(name(parent, run), for: target, blocking: random.chance(percent: 70))
        case 97..<99:
            return false
        default:
            run.cancelAll(random.chance(percent: 50) ? .cancelled : .deadline)
        }
        return true
    }

    private static func pick<T>(_ values: [T], _ random: inout SplitMix64) -> T? {
        values.isEmpty ? nil : random.pick(values)
    }

    private static func name(_ job: Int32, _ run: StepDriver) -> JobID { run.scheduler.id(of: job) }
}
