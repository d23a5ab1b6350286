@testable import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Random queues driven by random events (see ``StepDriver``): jobs added from outside with
/// needs on the jobs it keeps, lanes and keys; bodies that end or fail; cancels, timeouts and
/// abandons; callers watching and reading jobs; lanes declared again; and a final close. The
/// invariants, the queue's with them (`StepInvariants+Queue.swift`), are checked after every
/// step; at the end the queue must have finished, every job ended once, and it must keep no
/// more than `keepFinished` jobs and nothing for them.
///
/// Also, rarely, cancelling the whole queue. Left out: raising a queued job's priority (jobs
/// are added at one priority) and children (see `QueueFindingTests` for their step tests).
@Suite struct QueueSweepTests {
    @Test(arguments: 0..<8)
    func randomQueuesKeepTheInvariantsAndEndOnceClosed(batch: UInt64) {
        for seed in batch * 60..<(batch + 1) * 60 {
            if let failure = Self.sweep(seed: seed) {
                Issue.record("seed \(seed): \(failure)")
                return
            }
        }
    }

    /// Runs one random queue with random events, closes it and drains it; returns what went wrong.
    static func sweep(seed: UInt64) -> String? {
        var random = SplitMix64(state: seed)
        var run = StepDriver(queueOf: random.int(1...3), keepFinished: random.int(0...3))
        run.begin()
        for index in 0..<random.int(0...2) { run.declareLane("lane\(index)", width: random.int(1...2), ordered: random.chance(percent: 60)) }
        var events = random.int(0...120)
        var added = 0
        for _ in 0..<600 where events > 0 && run.problems.isEmpty {
            if event(&run, &random, added: &added) { events -= 1 }
        }
        run.close()
        run.drain()
        guard run.problems.isEmpty else { return "an invariant broke (recorded above)" }
        let scheduler = run.scheduler
        var problems: [String] = []
        if !run.isFinished || !run.workers.isEmpty || !run.waiting.isEmpty { problems.append("the queue did not finish") }
        for entry in run.queued where entry.ticket.result == nil { problems.append("\(entry.id) never ended") }
        if let keep = scheduler.keepFinished, scheduler.jobs.count > keep {
            problems.append("\(scheduler.jobs.count) jobs kept at the end, keepFinished \(keep)")
        }
        if scheduler.jobs.numbers.contains(where: { scheduler.added[$0].readers != 0 }) { problems.append("a job kept at the end has readers") }
        if !scheduler.keysInUse.isEmpty { problems.append("keys kept at the end: \(scheduler.keysInUse.keys.sorted())") }
        if !scheduler.watchers.isEmpty { problems.append("watchers kept at the end: \(scheduler.watchers.keys.sorted())") }
        if !scheduler.added.tickets.isEmpty { problems.append("tickets kept at the end: \(scheduler.added.tickets.keys.sorted())") }
        if !scheduler.added.dependents.isEmpty { problems.append("dependents kept at the end: \(scheduler.added.dependents)") }
        guard problems.isEmpty else { return "\(problems.joined(separator: "; "))\nsteps:\n  \(run.log.joined(separator: "\n  "))" }
        return nil
    }

    /// One random event, if it can happen now; returns whether it did.
    private static func event(_ run: inout StepDriver, _ random: inout SplitMix64, added: inout Int) -> Bool {
        run.parksAtOnce = false
        run.registersAtOnce = false
        let jobs = Array(run.scheduler.jobs.numbers)
        let unfinished = jobs.filter { !run.scheduler.jobs[$0].phase.isTerminal }
        let lanes = run.scheduler.lanes.map(\.name)
        switch random.int(0...999) / 10 {
        case 0..<22: return run.finishOne(&random)
        case 22..<28: return run.parkOne(&random)
        case 28..<31: return run.registerOne(&random)
        case 31..<56:
            // Mostly new IDs; sometimes the ID of a job that may have ended (then it names the new
            // job), a need the queue forgot, or a lane it never declared: refused.
            added += 1
            let id = random.chance(percent: 15) && added > 1 ? JobID("q\(random.int(0...added - 1))") : JobID("q\(added)")
            var needs = (0..<random.int(0...2)).compactMap { _ in pick(jobs, &random).map { name($0, run) } }
            if random.chance(percent: 5) { needs.append(JobID("q\(random.int(0...added))")) }
            let lane = random.chance(percent: 40) ? pick(lanes + (random.chance(percent: 5) ? ["nowhere"] : []), &random) : nil
            run.add(id, needs: needs, lane: lane, coalesce: random.chance(percent: 25) ? random.pick(["k0", "k1"]) : nil)
        case 56..<62:
            guard let job = pick(unfinished, &random) else { return false }
            run.cancel(name(job, run))
        case 62..<65:
            guard let job = pick(jobs.filter { run.scheduler.jobs[$0].phase == .running }, &random) else { return false }
            run.timeOut(name(job, run))
        case 65..<70:
            guard let job = pick(run.graceList, &random) else { return false }
            run.abandon(job: job, began: random.chance(percent: 80))
        case 70..<72:
            guard let worker = pick(run.detached.filter(\.waits.isEmpty), &random), let job = worker.job else { return false }
            run.finishLate(job: job)
        case 72..<79:
            guard let job = pick(jobs, &random) else { return false }
            run.watch(name(job, run))
        case 79..<85:
            guard let job = pick(run.reads, &random) else { return false }
            run.doneReading(job)
        case 89 where random.chance(percent: 20):
            run.cancelAll(.cancelled)
        case 85..<89:
            let lane = random.chance(percent: 70) ? pick(lanes, &random) ?? "lane0" : "lane\(lanes.count)"
            run.declareLane(lane, width: random.int(1...3), ordered: random.chance(percent: 60))
        default:
            return false
        }
        return true
    }

    private static func pick<T>(_ values: [T], _ random: inout SplitMix64) -> T? {
        values.isEmpty ? nil : random.pick(values)
    }

    private static func name(_ job: Int32, _ run: StepDriver) -> JobID { run.scheduler.id(of: job) }
}
