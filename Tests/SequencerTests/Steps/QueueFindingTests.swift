@testable import Sequencer
import Testing

/// Bugs of a queue's scheduler that `QueueSweepTests` found, each reduced to a step list; each
/// failed (or crashed) before its fix.
@Suite struct QueueFindingTests {
    typealias Scheduler = SchedulerState<Int>

    static func job(_ id: JobID, needs: [JobID] = [], priority: Priority = .utility) -> Scheduler.ChildRequest {
        Scheduler.ChildRequest(name: id, id: id, prefix: "", job: JobRequest(needs: needs, priority: priority) { _ in })
    }

    static func succeeded(at time: Int64) -> Completion {
        Completion(result: .succeeded(()), attempts: 1, startedAt: time - 1, endedAt: time)
    }

    /// A job cancelled while queued leaves a stale entry in the ready queue, passed over when
    /// popped; but a queue forgets the job first when a job of higher priority is taken ahead of
    /// the entry. `ReadyQueue.popLive` then reads the forgotten job's phase: index out of range.
    /// The fix: pass over entries whose job is no longer kept (`!jobs.contains(job) ||` in
    /// `popLive`). The same follows from raising a queued job's priority (its old entry stays)
    /// and from cancelling the whole queue (`endPending` ends queued jobs).
    @Test func aCancelledQueuedJobThatTheQueueForgotIsPassedOverInTheReadyQueue() throws {
        var queue = Scheduler(plan: Plan.empty, maxWorkers: 1, keepGoing: true, keepFinished: 0)
        _ = queue.begin()
        let (a, addA) = try queue.add(Self.job("a"))
        let worker = try #require(addA.spawn.first)
        let (low, _) = try queue.add(Self.job("low", priority: .background))
        let (high, _) = try queue.add(Self.job("high"))
        _ = queue.cancel(low, now: 1)  // its entry stays in the ready queue, stale
        let endA = queue.finish(a, Self.succeeded(at: 2), slot: worker.slot, generation: worker.generation)
        #expect(endA.worker == .run(high))
        #expect(queue.job("low") == nil, "a and low are forgotten")
        // Pops low's stale entry: passed over, not read.
        let endHigh = queue.finish(high, Self.succeeded(at: 3), slot: worker.slot, generation: worker.generation)
        #expect(endHigh.worker == .park)
    }

    /// A queue keeps a finished job while a job added from outside that needs it has not ended,
    /// but not while a child that needs it has not: the child's body then cannot read its need
    /// (`JobContext.value(of:)` throws `.unknownNeed`). `addChild` does not count the child as
    /// a reader of its needs (`AddedJob.readers`), nor `endedInQueue` uncount it.
    @Test func aQueueKeepsTheNeedsOfAChildUntilItEnds() throws {
        var queue = Scheduler(plan: Plan.empty, maxWorkers: 2, keepGoing: true, keepFinished: 0)
        _ = queue.begin()
        let (a, addA) = try queue.add(Self.job("a"))
        let (p, _) = try queue.add(Self.job("p"))
        let (child, _) = try queue.addChild(
            .init(name: "c", id: "p/c", prefix: "p", job: JobRequest(needs: ["a"]) { _ in }), to: p)
        let worker = addA.spawn[0]
        #expect(queue.finish(a, Self.succeeded(at: 1), slot: worker.slot, generation: worker.generation).worker == .run(child))
        #expect(queue.jobs[child].phase == .running)
        #expect(queue.job("a") == a, "p/c runs and may read the value of a")
    }

    /// A child with a coalescing key that `addChild` then refuses (here for an unknown need)
    /// keeps its key in use for ever: `childKey` counts the key's user before the checks that
    /// follow it throw. A later job with the key leads it and is kept for ever (the key's run
    /// outlives it), and so is every job added after it: the queue's memory grows.
    @Test func aRefusedChildDoesNotKeepItsKey() throws {
        var queue = Scheduler(plan: Plan.empty, maxWorkers: 1, keepGoing: true, keepFinished: 0)
        _ = queue.begin()
        let (p, addP) = try queue.add(Self.job("p"))
        let worker = addP.spawn[0]
        let child = Scheduler.ChildRequest(
            name: "c", id: "p/c", prefix: "p", job: JobRequest(needs: ["nowhere"], coalesce: "key") { _ in })
        #expect(throws: WorkflowError.self, "the child needs a job that does not exist") { try queue.addChild(child, to: p) }
        #expect(queue.finish(p, Self.succeeded(at: 1), slot: worker.slot, generation: worker.generation).worker == .park)
        _ = queue.park(slot: worker.slot, 0)
        let (keyed, addKeyed) = try queue.add(
            .init(name: "k", id: "k", prefix: "", job: JobRequest(coalesce: "key") { _ in }))
        #expect(addKeyed.wake.map(\.job) == [keyed], "the parked worker takes k")
        #expect(queue.finish(keyed, Self.succeeded(at: 2), slot: worker.slot, generation: worker.generation).worker == .park)
        #expect(queue.keysInUse.isEmpty, "no job that has the key is left")
        #expect(queue.job("k") == nil, "k ended and no one reads it: it is forgotten")
    }

    /// Cancelling a whole queue ends its waiting jobs in `endPending`, which leaves their entries
    /// in `added.dependents`: kept until the queue goes (it is closed by then, so they do not
    /// grow).
    @Test func cancellingAQueueForgetsWhoWaitedForWhom() throws {
        var queue = Scheduler(plan: Plan.empty, maxWorkers: 1, keepGoing: true, keepFinished: 0)
        _ = queue.begin()
        let (a, addA) = try queue.add(Self.job("a"))
        _ = try queue.add(Self.job("b"))
        _ = try queue.add(Self.job("c", needs: ["b"]))
        _ = queue.close()
        _ = queue.cancelAll(reason: .cancelled, now: 1)
        let worker = addA.spawn[0]
        let end = queue.finish(a, Completion(result: .threw(CancellationError()), attempts: 1, startedAt: 0, endedAt: 2), slot: worker.slot, generation: worker.generation)
        #expect(end.finished)
        #expect(queue.added.dependents.isEmpty)
    }
}
