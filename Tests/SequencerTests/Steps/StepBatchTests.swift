@testable import Sequencer
import Testing

/// Batches, as call sequences (see `SchedulerState+Batches.swift`): a worker takes several jobs
/// in one step, begins each without the lock, and reports their ends together; the scheduler
/// takes back the jobs it has not begun whenever one of them must not wait for it.
@Suite struct StepBatchTests {
    /// Six jobs that need nothing, one worker: the first job is taken alone, the second step
    /// takes a batch of three (a share of the five ready).
    private func sixJobs() throws -> StepDriver {
        var workflow = Workflow()
        for name in ["a", "b", "c", "d", "e", "f"] { try workflow.add(JobID(name)) { _ in } }
        var run = try StepDriver(workflow, maxConcurrency: 1, batchLimit: 32)
        run.begin()
        run.finish("a")
        return run
    }

    private func numbers(_ run: StepDriver, _ names: [JobID]) -> [Int32] { names.compactMap(run.number) }

    @Test func aWorkerTakesAShareOfADeepReadyQueueInOneStep() throws {
        let run = try sixJobs()
        #expect(run.last.batch == numbers(run, ["b", "c", "d"]))
        #expect(run.scheduler.workers[0].batch == numbers(run, ["b", "c", "d"]))
        #expect(run.running == ["b"])
        #expect(run.startOrder == ["a", "b"], "only the first job of a batch begins when it is taken")
        #expect(run.scheduler.snapshot(elapsed: .zero).pending == 4, "jobs taken and not begun are pending to a reader")
    }

    @Test func aBatchIsRunAndReportedInOneStep() throws {
        var run = try sixJobs()
        run.mustGoOn("b")
        run.mustGoOn("c")
        let wentOn = run.goOn("d")
        #expect(!wentOn, "the batch is done: the worker reports")
        #expect(run.phase("b") == .running && run.phase("c") == .running, "their ends are held until the report")
        run.finish("d")
        #expect(run.phase("b") == .succeeded && run.phase("c") == .succeeded && run.phase("d") == .succeeded)
        #expect(run.running == ["e"])
        run.drain()
        #expect(run.isFinished)
        #expect(run.startOrder == ["a", "b", "c", "d", "e", "f"])
    }

    /// The first case: a job taken but not begun is cancelled. Its body is never called;
    /// the jobs after it in the batch go back to the ready queue, in order.
    @Test func aJobCancelledBetweenTakeAndStartNeverStarts() throws {
        var run = try sixJobs()
        run.cancel("d")
        #expect(run.phase("d") == .cancelled)
        #expect(run.failure("d")?.code == .cancelled)
        #expect(run.phase("c") == .queued, "given back: the worker will not begin it")
        #expect(run.scheduler.workers[0].batch.isEmpty)
        let wentOn = run.goOn("b")
        #expect(!wentOn, "the batch is closed")
        run.finish("b")
        run.drain()
        #expect(run.isFinished)
        #expect(run.startOrder == ["a", "b", "c", "e", "f"], "c keeps its place; d never starts")
    }

    /// A job whose body returned in a batch, its end held by its worker, is cancelled: it ran, so
    /// it ends as it returned when its worker reports.
    @Test func aJobCancelledAfterItsBodyReturnedKeepsItsResult() throws {
        var run = try sixJobs()
        run.mustGoOn("b")
        run.cancel("b")
        #expect(run.phase("b") == .running)
        #expect(run.phase("d") == .queued, "the batch was closed")
        #expect(run.workers[0]?.cancelled == false, "the worker's task runs c, which was not cancelled")
        run.finish("c")
        #expect(run.phase("b") == .succeeded)
        #expect(run.phase("c") == .succeeded)
    }

    /// The running job of a batch is cancelled: its task is cancelled, and the jobs after it are
    /// given back for another worker.
    @Test func cancellingTheRunningJobOfABatchGivesBackTheRest() throws {
        var run = try sixJobs()
        run.mustGoOn("b")
        run.cancel("c")
        #expect(run.workers[0]?.cancelled == true)
        #expect(run.phase("d") == .queued)
        run.finish("c", .cancelled)
        #expect(run.phase("b") == .succeeded)
        #expect(run.phase("c") == .cancelled)
        run.drain()
        #expect(run.isFinished)
        #expect(run.phase("d") == .succeeded)
    }

    /// The deadline case: the jobs not begun end as pending jobs do, the running one is
    /// cancelled and times out, and the one whose body returned keeps its result.
    @Test func theDeadlineEndsTheJobsNotBegunAndKeepsTheEndsHeld() throws {
        var run = try sixJobs()
        run.mustGoOn("b")
        run.cancelAll(.deadline)
        #expect(run.phase("d") == .cancelled)
        #expect(run.failure("d")?.code == .deadlineExceeded)
        #expect(run.workers[0]?.cancelled == true)
        run.finish("c", .cancelled)
        #expect(run.phase("b") == .succeeded)
        #expect(run.phase("c") == .timedOut)
        #expect(run.failure("c")?.code == .deadlineExceeded)
        #expect(run.isFinished)
        #expect(run.startOrder == ["a", "b", "c"], "no job began after the deadline")
    }

    /// A failure that stops the run ends the jobs other workers took and have not begun.
    @Test func aFailureThatStopsTheRunEndsTheJobsNotBegun() throws {
        var workflow = Workflow()
        for index in 0..<10 { try workflow.add(JobID("j\(index)")) { _ in } }
        var run = try StepDriver(workflow, maxConcurrency: 2, batchLimit: 32)
        run.begin()
        run.finish("j0")
        let batch = run.scheduler.workers[0].batch
        #expect(batch.count > 1)
        run.finish("j1", .failed)
        for job in batch.dropFirst() {
            #expect(run.scheduler.jobs[job].phase == .skipped)
            #expect(!run.startOrder.contains(run.scheduler.id(of: job)))
        }
        run.drain()
        #expect(run.isFinished)
    }

    /// The lane case: a job taken in a batch holds its lane slot, as a queued job does,
    /// so the next job of the lane waits; a worker with nothing to do takes it back from behind
    /// a slow job, and the lane moves on.
    @Test func aTakenJobHoldsItsLaneSlotUntilAnIdleWorkerTakesItBack() throws {
        var workflow = Workflow()
        workflow.lane("l", width: 1, ordered: false)
        for name in ["p0", "p1", "p2"] { try workflow.add(JobID(name)) { _ in } }
        try workflow.add("x1", lane: "l") { _ in }
        try workflow.add("p3") { _ in }
        try workflow.add("x2", lane: "l") { _ in }
        for name in ["p4", "p5", "p6"] { try workflow.add(JobID(name)) { _ in } }
        var run = try StepDriver(workflow, maxConcurrency: 2, batchLimit: 32)
        run.begin()
        run.finish("p0")
        #expect(run.scheduler.workers[0].batch == numbers(run, ["p2", "x1"]))
        #expect(run.scheduler.lanes[0].used == 1, "x1 holds the lane's slot")
        #expect(run.phase("x2") == .laneWaiting)
        // p2 is slow: worker 1 runs everything else, then takes x1 back from behind it.
        for _ in 0..<10 {
            guard let job = run.workers[1]?.job, run.scheduler.id(of: job) != "x1" else { break }
            run.finish(run.scheduler.id(of: job))
        }
        #expect(run.workers[1]?.job == run.number("x1"))
        #expect(run.running == ["p2", "x1"])
        #expect(run.phase("x2") == .laneWaiting)
        run.finish("x1")
        #expect(run.running == ["p2", "x2"])
        run.drain()
        #expect(run.isFinished)
    }

    /// A job of an ordered lane is never batched: given back, it could lose its place in the
    /// lane's order. The batch stops before it, and it stays first in the ready queue.
    @Test func aBatchStopsBeforeAJobOfAnOrderedLane() throws {
        var workflow = Workflow()
        workflow.lane("l", width: 1)
        for name in ["p0", "p1"] { try workflow.add(JobID(name)) { _ in } }
        try workflow.add("x1", lane: "l") { _ in }
        for name in ["p2", "p3", "p4", "p5"] { try workflow.add(JobID(name)) { _ in } }
        var run = try StepDriver(workflow, maxConcurrency: 1, batchLimit: 32)
        run.begin()
        run.finish("p0")
        #expect(run.last.batch.isEmpty)
        #expect(run.running == ["p1"])
        run.finish("p1")
        #expect(run.running == ["x1"])
        run.drain()
        #expect(run.isFinished)
    }

    /// A worker holds the end of a job whose dependent could run on another worker that has
    /// nothing to do: the end is settled at once, not when the first worker reports.
    @Test func anEndHeldIsSettledWhenAWorkerCouldRunWhatFollows() throws {
        var workflow = Workflow()
        for name in ["p0", "p1", "b", "c"] { try workflow.add(JobID(name)) { _ in } }
        for index in 1...6 { try workflow.add(JobID("f\(index)")) { _ in } }
        try workflow.add("z", needs: ["b"]) { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2, batchLimit: 32)
        run.begin()
        run.finish("p0")
        #expect(run.scheduler.workers[0].batch == numbers(run, ["b", "c", "f1"]))
        run.mustGoOn("b")
        for _ in 0..<10 {
            guard let job = run.workers[1]?.job, run.scheduler.id(of: job) != "z" else { break }
            run.finish(run.scheduler.id(of: job))
        }
        #expect(run.phase("b") == .succeeded, "settled from the worker's held ends")
        #expect(run.running == ["c", "z"])
        run.drain()
        #expect(run.isFinished)
    }

    /// A job of a batch that adds a child runs alone from then on: the rest go back. The run
    /// takes one job at a time from then on: its jobs are parents, and each would give back the
    /// rest of its batch.
    @Test func aJobThatAddsAChildClosesItsBatch() throws {
        var run = try sixJobs()
        let child = run.addChild("k", to: "b")
        #expect(child != nil)
        #expect(run.phase("c") == .queued && run.phase("d") == .queued)
        #expect(run.scheduler.workers[0].job == run.number("b"))
        #expect(!run.scheduler.takesBatches)
        run.finish("b")  // waits for k, as a worker does
        run.finish("b/k")
        #expect(run.phase("b") == .succeeded)
        #expect(run.running.count == 1)
        #expect(run.scheduler.workers.slots.allSatisfy { $0.batch.isEmpty }, "c, d, e and f are ready, but taken one at a time")
        run.drain()
        #expect(run.isFinished)
        #expect(run.phase("b/k") == .succeeded)
    }

    /// A batch job abandoned after the grace period: the ends its worker held are settled from
    /// its probe, as its report would have.
    @Test func abandoningTheRunningJobOfABatchSettlesTheEndsItsWorkerHeld() throws {
        var run = try sixJobs()
        run.mustGoOn("b")
        run.cancel("c")
        run.abandon("c")
        #expect(run.phase("b") == .succeeded)
        #expect(run.phase("c") == .cancelled)
        run.drain()
        #expect(run.isFinished)
    }

    /// Six jobs as in ``sixJobs()``, each with the options `add` gives it.
    private func sixJobs(_ add: (inout Workflow, JobID) throws -> Void) throws -> StepDriver {
        var workflow = Workflow()
        for name in ["a", "b", "c", "d", "e", "f"] { try add(&workflow, JobID(name)) }
        var run = try StepDriver(workflow, maxConcurrency: 1, batchLimit: 32)
        run.begin()
        run.finish("a")
        return run
    }

    /// Jobs with a timeout are batched: the timer starts as the body begins. The running job of
    /// a batch times out: its task is cancelled, the jobs after it are given back, and the one
    /// whose body returned keeps its result.
    @Test func aTimeoutOfTheRunningJobOfABatchGivesBackTheRest() throws {
        var run = try sixJobs { try $0.add($1, timeout: .seconds(1)) { _ in } }
        #expect(run.last.batch == numbers(run, ["b", "c", "d"]))
        run.mustGoOn("b")
        run.timeOut("c")
        #expect(run.workers[0]?.cancelled == true)
        #expect(run.phase("d") == .queued, "given back")
        run.finish("c", .cancelled)
        #expect(run.phase("b") == .succeeded)
        #expect(run.phase("c") == .timedOut)
        #expect(run.failure("c")?.code == .timedOut)
        #expect(run.isFinished)
        #expect(run.phase("d") == .skipped, "the failure stopped the run: given back, d never began")
        #expect(run.startOrder == ["a", "b", "c"])
    }

    /// A timer cannot start before its job's body begins; one that fired for a job taken and
    /// not begun would be moot: the job goes back to the ready queue and runs in its turn.
    @Test func aTimeoutOfAJobNotBegunGivesItBackToRunInItsTurn() throws {
        var run = try sixJobs { try $0.add($1, timeout: .seconds(1)) { _ in } }
        run.timeOut("d")
        #expect(run.phase("d") == .queued)
        #expect(run.workers[0]?.cancelled == false, "the worker's task runs b, which did not time out")
        run.drain()
        #expect(run.isFinished)
        #expect(run.phase("d") == .succeeded)
        #expect(run.startOrder == ["a", "b", "c", "d", "e", "f"])
    }

    /// Jobs with a retry policy are batched. One that fails and will be tried again gives back
    /// the jobs of its batch not begun, rather than hold them through its delays; it ends as
    /// its last attempt does, with the ends its worker held.
    @Test func aJobToBeTriedAgainGivesBackTheRestOfItsBatch() throws {
        var run = try sixJobs { try $0.add($1, retry: .fixed(attempts: 2, delay: .seconds(1))) { _ in } }
        #expect(run.last.batch == numbers(run, ["b", "c", "d"]))
        run.mustGoOn("b")
        #expect(try retry(&run, "c"))
        #expect(run.phase("d") == .queued, "given back")
        #expect(run.phase("b") == .running, "its end is held until the report")
        #expect(run.scheduler.workers[0].batch.isEmpty)
        run.finish("c")
        #expect(run.phase("b") == .succeeded && run.phase("c") == .succeeded)
        run.drain()
        #expect(run.isFinished)
        #expect(run.startOrder == ["a", "b", "c", "d", "e", "f"])
    }

    /// The last job of a batch, begun without the lock, is not its slot's job until the batch
    /// closes: a retry closes it first, so the job may be tried again, unless a cancel was
    /// decided for it.
    @Test(arguments: [false, true])
    func theLastJobOfABatchMayBeTriedAgainUnlessCancelled(cancelled: Bool) throws {
        var run = try sixJobs { try $0.add($1, retry: .fixed(attempts: 2, delay: .seconds(1))) { _ in } }
        run.mustGoOn("b")
        run.mustGoOn("c")
        if cancelled { run.cancel("d") }
        #expect(try retry(&run, "d") == !cancelled)
        #expect(run.phase("d") == .running)
    }

    /// A worker detached since (its job abandoned) gives back nothing: the slot is another's.
    @Test func aWorkerOfAnotherGenerationGivesBackNothing() throws {
        var run = try sixJobs()
        #expect(try !retry(&run, "b", stale: true))
        #expect(run.scheduler.workers[0].batch == numbers(run, ["b", "c", "d"]))
        #expect(run.phase("d") == .running)
    }

    /// Asks, for worker 0, whether `name` may be tried again.
    private func retry(_ run: inout StepDriver, _ name: JobID, stale: Bool = false) throws -> Bool {
        let job = try #require(run.number(name))
        let generation = try #require(run.workers[0]?.generation) &+ (stale ? 1 : 0)
        var allowed = false
        run.step("\(name) fails: worker 0 asks to try it again") { scheduler in
            let actions: StepDriver.Scheduler.Actions
            (allowed, actions) = scheduler.retry(job, slot: 0, generation: generation)
            return actions
        }
        return allowed
    }

    /// Six jobs as in ``sixJobs()``, with the keys `keys` gives them.
    private func sixJobs(keys: [JobID: String]) throws -> StepDriver {
        try sixJobs { try $0.add($1, coalesce: keys[$1]) { _ in } }
    }

    /// A batch's keyed jobs lead or join as they are taken, in take order: c leads "k", and d,
    /// taken after it, joins it and stays out of the batch, which takes e in its place. d ends
    /// with c when the worker reports.
    @Test func aBatchsJobsWithAKeyLeadOrJoinAsTheyAreTaken() throws {
        var run = try sixJobs(keys: ["c": "k", "d": "k"])
        #expect(run.last.batch == numbers(run, ["b", "c", "e"]))
        #expect(run.phase("d") == .running)
        #expect(run.scheduler.joiners == numbers(run, ["d"]))
        run.mustGoOn("b")
        run.mustGoOn("c")
        run.finish("e")
        #expect(run.phase("d") == .succeeded)
        run.drain()
        #expect(run.isFinished)
        #expect(run.startOrder == ["a", "b", "c", "e", "f"], "d ran no body")
    }

    /// A leader given back by a closed batch stays its key's leader, its joiner waiting while it
    /// is queued again; taken again, it runs its body, and its joiner ends with it.
    @Test func aLeaderGivenBackKeepsItsJoinersAndRunsWhenTakenAgain() throws {
        var run = try sixJobs(keys: ["c": "k", "d": "k"])
        run.cancel("e")
        #expect(run.phase("c") == .queued, "given back")
        #expect(run.phase("d") == .running, "still joined to c")
        run.finish("b")
        #expect(run.running == ["c"], "taken again, c leads: it runs its body rather than join itself")
        run.finish("c")
        #expect(run.phase("d") == .succeeded)
        run.drain()
        #expect(run.isFinished)
    }

    /// A leader given back and then cancelled never begins: its joiner ends cancelled with it, and
    /// the key is free again.
    @Test func aLeaderCancelledAfterItWasGivenBackEndsItsJoiners() throws {
        var run = try sixJobs(keys: ["c": "k", "d": "k", "f": "k"])
        run.cancel("c")
        #expect(run.phase("c") == .cancelled)
        #expect(run.phase("d") == .cancelled)
        #expect(run.failure("d")?.cause == run.number("c"))
        run.drain()
        #expect(run.isFinished)
        #expect(run.phase("f") == .succeeded, "the key was freed: f led a new run of the work")
        #expect(run.startOrder.contains("f"))
    }

    /// The run stops (a failure, the deadline) while a leader waits in a batch, not begun: it
    /// ends as pending jobs do, and so do its joiners, which never got a result. The run ends.
    @Test(arguments: [false, true])
    func aStopEndsTheJoinersOfALeaderNotBegun(deadline: Bool) throws {
        var run = try sixJobs(keys: ["c": "k", "d": "k"])
        if deadline {
            run.cancelAll(.deadline)
        } else {
            run.finish("b", .failed)
        }
        let phase: JobPhase = deadline ? .cancelled : .skipped
        #expect(run.phase("c") == phase)
        #expect(run.phase("d") == phase)
        #expect(run.failure("d")?.code == (deadline ? .deadlineExceeded : .runStopped))
        #expect(run.scheduler.jobs[try #require(run.number("d"))].startedAt == nil, "d never started")
        run.drain()
        #expect(run.isFinished)
    }

    /// The priority case cannot arise: only a queue raises the priority of a job that has
    /// not started, and a queue never batches; nor does a run whose jobs have priorities, or one
    /// whose starts are observed.
    @Test func runsThatRaiseOrObserveStartsTakeOneJobAtATime() throws {
        var plain = Workflow()
        try plain.add("a") { _ in }
        var prioritized = Workflow()
        try prioritized.add("a", priority: .userInitiated) { _ in }
        try prioritized.add("b", priority: .background) { _ in }
        let (_, events) = AsyncStream.makeStream(of: RunEvent.self)
        #expect(RunCore.batchLimit(plan: try Plan(plain), options: RunOptions(), isQueue: false) == 32)
        #expect(RunCore.batchLimit(plan: try Plan(plain), options: RunOptions(), isQueue: true) == 1)
        #expect(RunCore.batchLimit(plan: try Plan(prioritized), options: RunOptions(), isQueue: false) == 1)
        #expect(RunCore.batchLimit(plan: try Plan(plain), options: RunOptions(events: events), isQueue: false) == 1)
    }

    /// With batches the scheduler still takes the highest priority first: a batch is the front
    /// of the ready queue, and what it gives back goes back to the front.
    @Test func aBatchTakesTheFrontOfTheReadyQueueAndGivesItBackInOrder() throws {
        var workflow = Workflow()
        try workflow.add("first") { _ in }
        for name in ["u1", "u2"] { try workflow.add(JobID(name), priority: .userInitiated) { _ in } }
        for name in ["b1", "b2", "b3", "b4"] { try workflow.add(JobID(name), priority: .background) { _ in } }
        try workflow.add("first2", priority: .userInteractive) { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1, batchLimit: 32)
        run.begin()
        run.finish("first2")
        #expect(run.last.batch == numbers(run, ["u1", "u2", "first", "b1"]))
        run.cancel("first")
        run.finish("u1")
        run.drain()
        #expect(run.startOrder == ["first2", "u1", "u2", "b1", "b2", "b3", "b4"])
    }
}
