@testable import Sequencer
import Testing

/// A queue's scheduler driven directly, as plain call sequences: jobs added from outside,
/// the worker parking while the queue is open, forgetting, keys that live while a job has them,
/// and closing.
@Suite struct QueueStepTests {
    typealias Scheduler = SchedulerState<Int>

    static func job(_ id: JobID, needs: [JobID] = [], lane: String? = nil, key: String? = nil) -> Scheduler.ChildRequest {
        Scheduler.ChildRequest(name: id, id: id, prefix: "", job: JobRequest(needs: needs, lane: lane, coalesce: key) { _ in })
    }

    static func succeeded(at time: Int64) -> Completion {
        Completion(result: .succeeded(()), attempts: 1, startedAt: time - 1, endedAt: time)
    }

    @Test func jobsComeAndGoUntilTheQueueIsClosed() throws {
        var queue = Scheduler(plan: Plan.empty, maxWorkers: 1, keepGoing: true, keepFinished: 1)
        #expect(queue.begin().isEmpty)
        let (a, addA) = try queue.add(Self.job("a"))
        #expect(addA.spawn.map(\.job) == [a], "a worker starts for a")
        let (slot, generation) = (addA.spawn[0].slot, addA.spawn[0].generation)
        let (b, addB) = try queue.add(Self.job("b", needs: ["a"]))
        #expect(addB.spawn.isEmpty, "b waits for a")
        #expect(queue.finish(a, Self.succeeded(at: 1), slot: slot, generation: generation).worker == .run(b))
        let endB = queue.finish(b, Self.succeeded(at: 2), slot: slot, generation: generation)
        #expect(endB.worker == .park, "the queue is open: its worker waits for more")
        #expect(!endB.finished)
        // One finished job is kept: a, which no one needs any more, is forgotten.
        #expect(queue.job("a") == nil)
        #expect(queue.job("b") == b)
        #expect(throws: WorkflowError.self) { try queue.add(Self.job("c", needs: ["a"])) }
        #expect(queue.park(slot: slot, 7).worker == .park)
        let (c, addC) = try queue.add(Self.job("c", needs: ["b"]))
        #expect(addC.wake.count == 1 && addC.wake[0].waiter == 7 && addC.wake[0].job == c, "the parked worker takes c")
        #expect(queue.finish(c, Self.succeeded(at: 3), slot: slot, generation: generation).worker == .park)
        #expect(queue.park(slot: slot, 8).worker == .park)
        let closed = queue.close()
        #expect(closed.finished)
        #expect(closed.wake.count == 1 && closed.wake[0].waiter == 8 && closed.wake[0].job == nil, "the worker exits")
        #expect(throws: WorkflowError.self) { try queue.add(Self.job("late")) }
    }

    @Test func aKeyIsSharedWhileAJobHasItThenForgotten() throws {
        var queue = Scheduler(plan: Plan.empty, maxWorkers: 2, keepGoing: true, keepFinished: 10)
        _ = queue.begin()
        let (first, addFirst) = try queue.add(Self.job("fetch#1", key: "fetch"))
        let leader = addFirst.spawn[0]
        let (second, addSecond) = try queue.add(Self.job("fetch#2", key: "fetch"))
        // The second worker takes the duplicate: it joins the leader and needs no worker.
        #expect(addSecond.spawn.isEmpty)
        #expect(queue.jobs[second].phase == .running && queue.joiners == [second])
        let end = queue.finish(first, Self.succeeded(at: 1), slot: leader.slot, generation: leader.generation)
        #expect(queue.jobs[second].phase == .succeeded, "the duplicate ends with its leader")
        #expect(end.worker == .park)
        #expect(queue.keysInUse.isEmpty, "no unfinished job has the key: it is forgotten")
        // The same key after the first ended is new work: it leads, with a worker of its own.
        let (third, addThird) = try queue.add(Self.job("fetch#3", key: "fetch"))
        #expect(addThird.spawn.map(\.job) == [third])
        let key = try #require(queue.key(of: third))
        #expect(queue.coalescing[key]?.leader == third)
    }

    @Test func aLaneDeclaredWhileTheQueueRunsLimitsItsJobsInOrder() throws {
        var queue = Scheduler(plan: Plan.empty, maxWorkers: 2, keepGoing: true, keepFinished: 10)
        _ = queue.begin()
        _ = queue.declareLane("disk", width: 1, ordered: true)
        let (first, addFirst) = try queue.add(Self.job("write-1", lane: "disk"))
        let (second, addSecond) = try queue.add(Self.job("write-2", lane: "disk"))
        #expect(addFirst.spawn.map(\.job) == [first])
        #expect(addSecond.spawn.isEmpty, "the lane is full: write-2 waits although a worker is free")
        #expect(queue.jobs[second].phase == .laneWaiting)
        let worker = addFirst.spawn[0]
        #expect(queue.finish(first, Self.succeeded(at: 1), slot: worker.slot, generation: worker.generation).worker == .run(second))
        #expect(throws: WorkflowError.self) { try queue.add(Self.job("x", lane: "undeclared")) }
    }

    @Test func aBodyIsHandedBackToBeDroppedOnceNoWorkerWillRunIt() throws {
        var queue = Scheduler(plan: Plan.empty, maxWorkers: 1, keepGoing: true, keepFinished: 10)
        _ = queue.begin()
        let (a, addA) = try queue.add(Self.job("a"))
        let worker = addA.spawn[0]
        let (b, addB) = try queue.add(Self.job("b"))
        #expect(addA.released.isEmpty && addB.released.isEmpty)
        #expect(!(queue.added[a].body is EndedJobBody) && !(queue.added[b].body is EndedJobBody))
        // b never started: cancelled, its body goes at once.
        let cancelB = queue.cancel(b, now: 1)
        #expect(cancelB.released.count == 1 && queue.added[b].body is EndedJobBody)
        // a runs: cancelled, it keeps its body until its worker reports.
        let cancelA = queue.cancel(a, now: 2)
        #expect(cancelA.released.isEmpty && !(queue.added[a].body is EndedJobBody))
        let cancelled = Completion(result: .threw(CancellationError()), attempts: 1, startedAt: 1, endedAt: 3)
        let endA = queue.finish(a, cancelled, slot: worker.slot, generation: worker.generation)
        #expect(endA.released.count == 1 && queue.added[a].body is EndedJobBody)
        #expect(queue.jobs[a].phase == .cancelled && queue.jobs[b].phase == .cancelled)
    }

    @Test func aJobThatJoinsACoalescedLeaderLetsGoOfItsBodyAtOnce() throws {
        var queue = Scheduler(plan: Plan.empty, maxWorkers: 2, keepGoing: true, keepFinished: 10)
        _ = queue.begin()
        let (first, addFirst) = try queue.add(Self.job("fetch#1", key: "fetch"))
        let (second, addSecond) = try queue.add(Self.job("fetch#2", key: "fetch"))
        #expect(addFirst.released.isEmpty && !(queue.added[first].body is EndedJobBody))
        #expect(addSecond.released.count == 1 && queue.added[second].body is EndedJobBody, "it joined: it never runs its body")
        let leader = addFirst.spawn[0]
        let end = queue.finish(first, Self.succeeded(at: 1), slot: leader.slot, generation: leader.generation)
        #expect(end.released.count == 1 && queue.added[first].body is EndedJobBody)
        #expect(queue.jobs[second].phase == .succeeded)
    }

    @Test func aJobAbandonedBeforeItsWorkerReadItAndForgottenSinceHasNoSpec() throws {
        var queue = Scheduler(plan: Plan.empty, maxWorkers: 1, keepGoing: true, keepFinished: 0)
        _ = queue.begin()
        let (a, addA) = try queue.add(Self.job("a"))
        let worker = addA.spawn[0]
        #expect(queue.spec(of: a) != nil)
        _ = queue.cancel(a, now: 1)
        // The grace period passed; its worker had begun (progress) but not read the body yet.
        let abandoned = queue.abandon(a, progress: (startedAt: 1, attempt: 1), now: 2)
        #expect(abandoned.released.isEmpty, "its worker may still read the body")
        #expect(queue.job("a") == nil, "ended and needed by no one: forgotten (keepFinished 0)")
        #expect(queue.spec(of: a) == nil, "the late worker finds nothing to run, rather than reading outside the table")
        let late = Completion(result: .threw(CancellationError()), attempts: 0, startedAt: 1, endedAt: 3)
        #expect(queue.finish(a, late, slot: worker.slot, generation: worker.generation).worker == .exit)
    }
}
