@testable import Sequencer

/// A queue's events (see ``StepDriver/init(queueOf:keepFinished:)``): jobs added from outside,
/// callers watching and reading jobs, lanes declared while it runs, and closing.
extension StepDriver {
    /// A job added from outside, with a ticket for its outcome. Returns its number, or nil when
    /// the queue refuses it (the error is logged).
    @discardableResult
    mutating func add(
        _ id: JobID, needs: [JobID] = [], lane: String? = nil, priority: Priority = .utility, coalesce: String? = nil
    ) -> Int32? {
        let request = Scheduler.ChildRequest(
            name: id, id: id, prefix: "", job: JobRequest(needs: needs, lane: lane, priority: priority, coalesce: coalesce) { _ in })
        let ticket = JobTicket()
        // Listed before the step, whose invariants read the list, with the number it will get.
        queued.append((scheduler.jobs.end, id, lane, ticket))
        do {
            var job: Int32 = 0
            try step("add \(id) needing \(needs)\(lane.map { " in \($0)" } ?? "")\(coalesce.map { " with key \($0)" } ?? "")") { scheduler in
                let (number, actions) = try scheduler.add(request, ticket: ticket)
                job = number
                return actions
            }
            if job != queued[queued.count - 1].job { problem("\(id) was numbered \(job), not the next number") }
            return job
        } catch {
            queued.removeLast()
            note("refused (\(error))")
            checkInvariants()
            return nil
        }
    }

    /// A caller waits for `name` to end, as `JobQueue.value(of:)` does; once resumed, it reads the
    /// job with ``doneReading(_:)``.
    mutating func watch(_ name: JobID) {
        guard let job = number(name) else { return problem("watch \(name): the queue has no such job") }
        let waiter = nextWaiter
        nextWaiter += 1
        watching[waiter] = job
        step("a caller watches \(name)") { $0.watch(job, waiter) }
    }

    /// A caller whose watch of `job` resumed has read it.
    mutating func doneReading(_ job: Int32) {
        guard let index = reads.firstIndex(of: job) else { return problem("done reading \(job): no caller read it") }
        reads.remove(at: index)
        step("a caller read job \(job)") { $0.doneReading(job) }
    }

    mutating func declareLane(_ name: String, width: Int, ordered: Bool = true) {
        step("declare lane \(name) width \(width)\(ordered ? "" : " unordered")") { $0.declareLane(name, width: width, ordered: ordered) }
    }

    mutating func close() {
        step("close") { $0.close() }
    }
}
