@testable import Sequencer

/// A queue's invariants (see ``StepDriver/init(queueOf:keepFinished:)``), checked after every
/// step with the others: it keeps a finished job exactly while someone may still read it, and
/// forgets the rest oldest first beyond `keepFinished`.
extension StepDriver {
    func queueProblems() -> [String] {
        guard scheduler.keepFinished != nil else { return [] }
        return readerProblems() + keptProblems() + queueLaneProblems()
    }

    /// A job's readers are the unfinished jobs (added from outside, or children) that need it, the callers
    /// watching it or reading it, and, while it leads its key's run, that run.
    private func readerProblems() -> [String] {
        var problems: [String] = []
        var expected: [Int32: Int32] = [:]
        for job in scheduler.jobs.numbers where !scheduler.jobs[job].phase.isTerminal {
            for need in scheduler.needs(of: job) { expected[need, default: 0] += 1 }
        }
        for job in watching.values { expected[job, default: 0] += 1 }
        for job in reads { expected[job, default: 0] += 1 }
        for job in scheduler.jobs.numbers {
            if let key = scheduler.key(of: job), scheduler.coalescing[key]?.leader == job { expected[job, default: 0] += 1 }
            let readers = scheduler.added[job].readers
            if readers != expected[job, default: 0] {
                problems.append("\(scheduler.id(of: job)) has \(readers) readers, expected \(expected[job, default: 0])")
            }
            expected[job] = nil
        }
        for job in expected.keys { problems.append("job \(job), forgotten, still has readers") }
        return problems
    }

    /// What a queue keeps: every unfinished job (by its ID), their needs, and finished jobs only
    /// up to the first it may not forget; a ticket for each unfinished job added from outside.
    private func keptProblems() -> [String] {
        var problems: [String] = []
        let jobs = scheduler.jobs
        for job in jobs.numbers where !jobs[job].phase.isTerminal {
            if scheduler.job(scheduler.id(of: job)) != job { problems.append("\(scheduler.id(of: job)) is not found by its ID") }
            for need in scheduler.needs(of: job) where !jobs.contains(need) {
                problems.append("\(scheduler.id(of: job)) is \(jobs[job].phase), but its need (job \(need)) was forgotten")
            }
            if let key = scheduler.key(of: job), !scheduler.keysInUse.values.contains(where: { $0.id == key }) {
                problems.append("\(scheduler.id(of: job)) has key \(key), which was forgotten")
            }
        }
        if let keepFinished = scheduler.keepFinished, jobs.count - scheduler.unfinished > keepFinished, !jobs.isEmpty {
            let oldest = jobs.base
            if jobs[oldest].phase.isTerminal, scheduler.added[oldest].readers == 0 {
                problems.append("\(jobs.count - scheduler.unfinished) finished jobs are kept, beyond \(keepFinished), with \(scheduler.id(of: oldest)) oldest and unread")
            }
        }
        let withTickets = Set(queued.filter { jobs.contains($0.job) && !jobs[$0.job].phase.isTerminal }.map(\.job))
        if Set(scheduler.added.tickets.keys) != withTickets {
            problems.append("the tickets held are for jobs \(scheduler.added.tickets.keys.sorted()), the unfinished jobs added are \(withTickets.sorted())")
        }
        for entry in queued where (entry.ticket.result != nil) == withTickets.contains(entry.job) {
            problems.append("\(entry.id)'s ticket is \(entry.ticket.result == nil ? "empty" : "filled") while it \(withTickets.contains(entry.job) ? "has not ended" : "ended")")
        }
        return problems
    }

    /// An ordered lane of a queue takes its jobs in the order they were added.
    private func queueLaneProblems() -> [String] {
        var problems: [String] = []
        let ordered = Set(scheduler.lanes.filter(\.ordered).map(\.name))
        var waitingEarlier: [String: JobID] = [:]
        for entry in queued where entry.lane.map(ordered.contains) == true && scheduler.jobs.contains(entry.job) {
            guard let lane = entry.lane else { continue }
            let state = scheduler.jobs[entry.job]
            if state.phase == .waiting || state.phase == .laneWaiting {
                waitingEarlier[lane] = waitingEarlier[lane] ?? entry.id
            } else if let earlier = waitingEarlier[lane], state.phase == .queued || state.phase == .running || state.startedAt != nil {
                problems.append("\(entry.id) started in ordered lane \(lane) while \(earlier), added before it, waits")
            }
        }
        return problems
    }
}
