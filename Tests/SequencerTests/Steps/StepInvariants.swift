@testable import Sequencer

/// The scheduler's invariants, read from its state and from the driver's model of the workers,
/// checked after every step.
extension StepDriver {
    mutating func checkInvariants() {
        for text in invariantProblems() { problem(text) }
        phasesSeen = Dictionary(uniqueKeysWithValues: scheduler.jobs.numbers.map { ($0, scheduler.jobs[$0].phase) })
    }

    private func invariantProblems() -> [String] {
        phaseProblems() + workerProblems() + laneProblems() + endProblems() + queueProblems() + batchProblems()
    }

    /// Each job is in exactly one phase, counted; phases only move forward; a job runs only
    /// after its needs succeeded.
    private func phaseProblems() -> [String] {
        var problems: [String] = []
        var tally: [JobPhase: Int] = [:]
        for job in scheduler.jobs.numbers {
            let phase = scheduler.jobs[job].phase
            tally[phase, default: 0] += 1
            // A job of a batch its worker did not begin goes back to the ready queue.
            let givenBack = phasesSeen[job] == .running && phase == .queued && !started.contains(job)
            if let seen = phasesSeen[job], !givenBack, Self.rank(phase) < Self.rank(seen) || (seen.isTerminal && phase != seen) {
                problems.append("\(name(job)) went from \(seen) to \(phase)")
            }
            if phase == .running || phase == .succeeded {
                // A need a queue forgot had ended; whether it may be forgotten is checked in `queueProblems`.
                for need in scheduler.needs(of: job) where scheduler.jobs.contains(need) && scheduler.jobs[need].phase != .succeeded {
                    problems.append("\(name(job)) is \(phase) but its need \(name(need)) is \(scheduler.jobs[need].phase)")
                }
            }
        }
        // A queue counts the finished jobs it forgot too.
        let forgets = scheduler.keepFinished != nil
        for phase in JobPhase.allCases where tally[phase, default: 0] != scheduler.counts[phase] {
            guard !forgets || !phase.isTerminal || tally[phase, default: 0] > scheduler.counts[phase] else { continue }
            problems.append("\(tally[phase, default: 0]) jobs are \(phase), counted \(scheduler.counts[phase])")
        }
        let ended = JobPhase.allCases.filter(\.isTerminal).reduce(0) { $0 + tally[$1, default: 0] }
        if ended != (scheduler.jobs.count - scheduler.unfinished) { problems.append("\(ended) jobs ended, counted \((scheduler.jobs.count - scheduler.unfinished))") }
        if scheduler.ready.count - scheduler.ready.stale != tally[.queued, default: 0] {
            problems.append("the ready queue holds \(scheduler.ready.count - scheduler.ready.stale) live jobs, \(tally[.queued, default: 0]) are queued")
        }
        return problems
    }

    /// At most `maxConcurrency` bodies run (parents waiting for children excluded), and the
    /// model of the workers agrees with the scheduler's slots; no job waits in the queue while a
    /// worker could take it.
    private func workerProblems() -> [String] {
        var problems: [String] = []
        let slots = scheduler.workers
        let live = workers.values.filter(\.waits.isEmpty).count
        if live > slots.limit { problems.append("\(live) workers hold a slot, the limit is \(slots.limit)") }
        if live != slots.live { problems.append("\(live) workers hold a slot, the scheduler counts \(slots.live)") }
        for worker in workers.values {
            let slot = slots[worker.slot]
            // In an open batch, the job its worker runs is the last it claimed.
            let current = slot.batch.isEmpty ? slot.job : slot.batch[slot.begunInBatch - 1]
            if slot.generation != worker.generation || current != worker.job {
                problems.append("worker \(worker.slot) runs \(worker.job.map(name) ?? "nothing"), the scheduler's slot says \(current.map(name) ?? "nothing")")
            }
        }
        // A worker whose job was cancelled has its task cancelled, once the run knows the task.
        for worker in workers.values where worker.registered && !worker.cancelled {
            let slot = slots[worker.slot]
            if slot.generation == worker.generation, slot.retiring {
                problems.append("worker \(worker.slot) must exit after its job, but its task was not cancelled")
            }
        }
        for (index, slot) in slots.slots.enumerated() where slot.job != nil && workers[index] == nil {
            problems.append("slot \(index) runs \(slot.job.map(name) ?? "") without a worker")
        }
        let parked = Set(workers.values.filter { $0.state == .parked }.map(\.slot))
        if parked != Set(slots.idle.map(\.slot)) {
            problems.append("parked workers \(parked.sorted()), the scheduler's idle ones \(slots.idle.map(\.slot).sorted())")
        }
        if scheduler.counts[.queued] > 0, !slots.idle.isEmpty || slots.hasRoom {
            problems.append("\(scheduler.counts[.queued]) jobs are queued while a worker could take one")
        }
        // A parent whose children ended resumes as soon as its lane lets it: an idle worker
        // makes room for it.
        for entry in scheduler.groups.resumable {
            guard let slot = entry.slot, let parent = slots[slot].job else { continue }
            let laneIsFull = scheduler.jobs[parent].lane.map { scheduler.lanes[$0].used >= scheduler.lanes[$0].width } ?? false
            if !laneIsFull, slots.hasRoom || !slots.idle.isEmpty {
                problems.append("\(name(parent)) waits to resume while a worker could make room for it")
            }
        }
        return problems
    }

    /// Each lane holds at most `width` slots: one per job queued or running in it (parents
    /// waiting for children gave theirs up).
    private func laneProblems() -> [String] {
        var problems: [String] = []
        var holders = [Int](repeating: 0, count: scheduler.lanes.count)
        for job in scheduler.jobs.numbers {
            guard let lane = scheduler.jobs[job].lane else { continue }
            let phase = scheduler.jobs[job].phase
            let suspended = scheduler.workers.slot(running: job).map { scheduler.workers[$0].suspended } ?? false
            if phase == .queued || (phase == .running && !suspended) { holders[lane] += 1 }
        }
        // An ordered lane takes its jobs in the order they were added: none starts while an
        // earlier one still waits (for its needs or its turn). Children have no place in it.
        for lane in scheduler.plan.lanes where lane.ordered {
            var waitingEarlier: Int32?
            for job in lane.members {
                let state = scheduler.jobs[job]
                if state.phase == .waiting || state.phase == .laneWaiting {
                    waitingEarlier = waitingEarlier ?? job
                } else if let earlier = waitingEarlier, state.phase == .queued || state.phase == .running || state.startedAt != nil {
                    problems.append("\(name(job)) started in ordered lane \(lane.name) while \(name(earlier)), added before it, waits")
                }
            }
        }
        for (index, lane) in scheduler.lanes.enumerated() {
            // A queue's lane declared again narrower keeps the slots already held.
            if lane.used > lane.width, scheduler.keepFinished == nil {
                problems.append("lane \(lane.name) has \(lane.used) slots used, width \(lane.width)")
            }
            if lane.used != holders[index] { problems.append("lane \(lane.name) counts \(lane.used) slots used, \(holders[index]) jobs hold one") }
        }
        return problems
    }

    /// The run says it ended exactly once, when every job has ended, and then no worker waits.
    private func endProblems() -> [String] {
        guard hasBegun else { return [] }
        var problems: [String] = []
        if finishedCount != (scheduler.isFinished ? 1 : 0) {
            problems.append("the run said it ended \(finishedCount) times; \((scheduler.jobs.count - scheduler.unfinished)) of \(scheduler.jobs.count) jobs ended")
        }
        if scheduler.isFinished, workers.values.contains(where: { $0.state == .parked }) {
            problems.append("the run ended with parked workers")
        }
        return problems
    }

    private func name(_ job: Int32) -> String { scheduler.id(of: job).description }

    private static func rank(_ phase: JobPhase) -> Int {
        phase.isTerminal ? Int(JobPhase.succeeded.rawValue) : Int(phase.rawValue)
    }
}
