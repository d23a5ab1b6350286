@testable import Sequencer
import Testing

/// The scheduler's rules, one part at a time, as plain call sequences (see ``StepDriver``).
@Suite struct StepRuleTests {
    @Test func theReadyQueueTakesTheHighestPriorityFirstThenTheOldest() throws {
        var workflow = Workflow()
        try workflow.add("0", priority: .userInitiated) { _ in }
        try workflow.add("1", priority: .background) { _ in }
        try workflow.add("2", priority: .userInitiated) { _ in }
        try workflow.add("3", priority: .userInteractive) { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        #expect(run.running == ["3"])
        run.finish("3")
        #expect(run.running == ["0"])
        run.finish("0")
        #expect(run.running == ["2"], "of two jobs of one priority, the one added first")
        run.finish("2")
        run.finish("1")
        #expect(run.startOrder == ["3", "0", "2", "1"])
        #expect(run.isFinished)
    }

    /// A job added at run time, a child as a queue's job, is admitted by one rule: a need that
    /// failed skips it, naming the first of its needs that did.
    @Test func anAddedJobWhoseNeedsFailedIsSkippedForTheFirstOfThem() throws {
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        try workflow.add("b") { _ in }
        try workflow.add("parent") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 3, keepGoing: true)
        run.begin()
        run.finish("b", .failed)
        run.finish("a", .failed)
        run.addChild("child", to: "parent", needs: ["a", "b"])
        #expect(run.phase("parent/child") == .skipped)
        #expect(run.failure("parent/child")?.code == .neededJobFailed)
        #expect(run.failure("parent/child")?.cause == run.number("a"), "the first need named, not the first that failed")
    }

    @Test func aWorkerThatFinishesTakesTheNextJobItself() throws {
        var workflow = Workflow()
        try workflow.add("0") { _ in }
        try workflow.add("1", needs: ["0"]) { _ in }
        try workflow.add("2") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        #expect(run.last.spawn.map(\.job) == [0])
        run.finish("0")
        #expect(run.last.worker == .run(2), "job 2 was queued before job 1")
        #expect(run.last.spawn.isEmpty)
        run.finish("2")
        #expect(run.running == ["1"])
        run.finish("1")
        #expect(run.last.worker == .exit)
        #expect(run.isFinished)
    }

    /// An ordered lane admits its jobs in the order they were added: a job whose needs are
    /// still running holds its place, and the lane's next job waits behind it.
    @Test func anOrderedLaneHoldsALaterJobBehindAnEarlierOneWaitingForItsNeeds() throws {
        var workflow = Workflow()
        workflow.lane("disk", width: 1)
        try workflow.add("slow") { _ in }
        try workflow.add("first", needs: ["slow"], lane: "disk") { _ in }
        try workflow.add("second", lane: "disk") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        #expect(run.running == ["slow"], "second waits for first, which waits for slow")
        #expect(run.phase("second") == .laneWaiting)
        run.finish("slow")
        #expect(run.running == ["first"])
        run.finish("first")
        #expect(run.running == ["second"])
        run.finish("second")
        #expect(run.isFinished)
    }

    @Test func anUnorderedLaneTakesWhicheverJobIsReady() throws {
        var workflow = Workflow()
        workflow.lane("disk", width: 1, ordered: false)
        try workflow.add("slow") { _ in }
        try workflow.add("first", needs: ["slow"], lane: "disk") { _ in }
        try workflow.add("second", lane: "disk") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        #expect(run.running == ["second", "slow"])
        run.finish("slow")
        #expect(run.running == ["second"], "first waits for the lane's only slot")
        #expect(run.phase("first") == .laneWaiting)
        run.finish("second")
        #expect(run.running == ["first"])
        run.finish("first")
        #expect(run.isFinished)
    }

    /// At `maxConcurrency: 1` a parent waiting for a child gives its slot up; when the child
    /// ends, the parent resumes before any new job starts.
    @Test func aWaitingParentGivesItsSlotToItsChildAndResumesBeforeANewJob() throws {
        var workflow = Workflow()
        try workflow.add("parent") { _ in }
        try workflow.add("sibling") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        run.addChild("first", to: "parent", priority: .userInitiated)
        run.addChild("second", to: "parent")
        #expect(run.running == ["parent"], "the child waits for the only worker")
        run.wait("parent", for: "parent/first")
        #expect(run.running == ["parent/first"])
        #expect(run.waiting == ["parent"])
        run.finish("parent/first")
        #expect(run.running == ["parent"], "resumed before sibling and second")
        #expect(run.phase("sibling") == .queued)
        run.finish("parent")  // waits for second, as a worker does
        #expect(run.running == ["parent/second"], "a child starts before the jobs queued before it")
        run.finish("parent/second")
        #expect(run.phase("parent") == .succeeded, "it ends once its children have")
        #expect(run.running == ["sibling"])
        run.finish("sibling")
        #expect(run.isFinished)
    }

    /// Children start before the other ready jobs of their priority, so parents that each add a
    /// child and wait for it never pile up: a worker freed by a waiting parent runs its child,
    /// not another parent. (Before, every parent began and waited before any child ran: 500,000
    /// parents held 5 GB.)
    @Test func parentsThatEachWaitForAChildDoNotPileUp() throws {
        var workflow = Workflow()
        for index in 0..<20 { try workflow.add(JobID("p\(index)")) { _ in } }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        var began: Set<JobID> = []
        var mostWaiting = 0
        for _ in 0..<100 {
            guard let job = run.running.first else { break }
            if job.description.contains("/") || began.contains(job) {
                run.finish(job)  // a child, or a parent that resumed
            } else {
                began.insert(job)
                run.addChild("child", to: job)
                run.wait(job)
            }
            mostWaiting = max(mostWaiting, run.waiting.count)
        }
        #expect(run.isFinished)
        #expect(began.count == 20)
        #expect(mostWaiting <= 2, "at most one waiting parent a worker")
    }

    @Test func aJobTakenWhileItsKeysLeaderRunsJoinsItAndEndsWithIt() throws {
        var workflow = Workflow()
        try workflow.add("leader", coalesce: "k") { _ in }
        try workflow.add("joiner", coalesce: "k") { _ in }
        try workflow.add("other") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        #expect(run.running == ["leader", "other"], "joiner holds no worker")
        #expect(run.phase("joiner") == .running)
        run.finish("leader", .failed)
        #expect(run.phase("joiner") == .failed)
        #expect(run.failure("joiner")?.cause == run.number("leader"))
        run.finish("other")
        #expect(run.isFinished)
    }

    /// A cancelled leader frees its key: a job with the key taken after it ended runs the work
    /// again, instead of sharing the cancellation.
    @Test func aCancelledLeaderFreesItsKey() throws {
        var workflow = Workflow()
        try workflow.add("leader", coalesce: "k") { _ in }
        try workflow.add("joiner", coalesce: "k") { _ in }
        try workflow.add("gate") { _ in }
        try workflow.add("later", needs: ["gate"], coalesce: "k") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2)
        run.begin()
        #expect(run.running == ["gate", "leader"])
        #expect(run.phase("joiner") == .running)
        run.cancel("leader")
        run.finish("leader", .cancelled)
        #expect(run.phase("leader") == .cancelled)
        #expect(run.phase("joiner") == .cancelled, "it ends with its leader")
        run.finish("gate")
        #expect(run.running == ["later"], "the key is free: later leads a new run of the work")
        run.finish("later")
        #expect(run.phase("later") == .succeeded)
        #expect(run.isFinished)
    }

    @Test func cancellingAQueuedJobEndsItAndSkipsWhatNeedsIt() throws {
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        try workflow.add("b") { _ in }
        try workflow.add("c", needs: ["b"]) { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        run.cancel("b")
        #expect(run.phase("b") == .cancelled)
        #expect(run.phase("c") == .skipped)
        #expect(run.last.cancel.isEmpty && run.last.abandonLater.isEmpty, "nothing ran")
        run.finish("a")
        #expect(run.isFinished)
    }

    /// A running job is cancelled in two steps: its worker's task is cancelled, then, after the
    /// grace period, the job is abandoned. Without progress (its body has not begun) it gets
    /// another grace period; with it, the job ends cancelled and its slot goes to the next job.
    @Test func aCancelledRunningJobIsAbandonedAfterTheGracePeriod() throws {
        var workflow = Workflow()
        try workflow.add("stuck") { _ in }
        try workflow.add("next") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        let slot = try #require(run.number("stuck").flatMap(run.slot(running:)))
        run.cancel("stuck")
        #expect(run.last.cancel.map(\.slot) == [slot])
        #expect(run.last.abandonLater == run.number("stuck").map { [$0] })
        #expect(run.workers[slot]?.cancelled == true)
        #expect(run.phase("stuck") == .running)
        run.abandon("stuck", began: false)
        #expect(run.phase("stuck") == .running, "it had no chance to see the cancellation")
        #expect(run.last.abandonLater == run.number("stuck").map { [$0] }, "it gets another grace period")
        run.abandon("stuck")
        #expect(run.phase("stuck") == .cancelled)
        #expect(run.running == ["next"], "a new worker takes the freed slot")
        #expect(run.last.spawn.count == 1)
        run.finishLate("stuck")  // ignored: checked by the driver
        #expect(run.phase("stuck") == .cancelled)
        run.finish("next")
        #expect(run.isFinished)
    }

    /// A cancelled body that returns within the grace period ends as usual; abandoning it
    /// later does nothing.
    @Test func aCancelledBodyThatReturnsIsNotAbandoned() throws {
        var workflow = Workflow()
        try workflow.add("a") { _ in }
        try workflow.add("b") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        run.cancel("a")
        run.finish("a", .cancelled)
        #expect(run.phase("a") == .cancelled)
        #expect(run.last.worker == .exit, "a cancelled worker exits")
        #expect(run.running == ["b"], "a new worker takes its place")
        run.abandon("a")
        #expect(run.last.isEmpty)
        run.finish("b")
        #expect(run.isFinished)
    }

    @Test func theDeadlineTimesOutRunningJobsAndCancelsTheRest() throws {
        var workflow = Workflow()
        try workflow.add("running") { _ in }
        try workflow.add("queued") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 1)
        run.begin()
        run.cancelAll(.deadline)
        #expect(run.phase("queued") == .cancelled)
        #expect(run.failure("queued")?.code == .deadlineExceeded)
        #expect(run.scheduler.stopReason == .deadline)
        run.finish("running", .cancelled)
        #expect(run.phase("running") == .timedOut)
        #expect(run.failure("running")?.code == .deadlineExceeded)
        #expect(run.isFinished)
    }

    @Test(arguments: [false, true])
    func aFailureStopsNewJobsUnlessTheRunKeepsGoing(keepGoing: Bool) throws {
        var workflow = Workflow()
        try workflow.add("fails") { _ in }
        try workflow.add("long") { _ in }
        try workflow.add("later") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2, keepGoing: keepGoing)
        run.begin()
        run.finish("fails", .failed)
        if keepGoing {
            #expect(run.running == ["later", "long"])
            run.finish("later")
        } else {
            #expect(run.running == ["long"], "running jobs go on; nothing new starts")
            #expect(run.phase("later") == .skipped)
            #expect(run.failure("later")?.code == .runStopped)
        }
        run.finish("long")
        #expect(run.isFinished)
    }

    /// A worker asks before it tries a failed job again. A cancel decided under the lock reaches
    /// the worker's task only after it, and may be why the attempt failed (a child refused): the
    /// scheduler's answer is the one that counts. (The batch stress test ran bodies twice so.)
    @Test func aFailedJobIsTriedAgainOnlyWhileItsWorkerRunsItAndNothingStoppedIt() throws {
        var workflow = Workflow()
        for name in ["a", "b", "c"] { try workflow.add(JobID(name)) { _ in } }
        var run = try StepDriver(workflow, maxConcurrency: 3, keepGoing: false)
        run.begin()
        func asks(_ name: JobID, stale: Bool = false) throws -> Bool {
            let job = try #require(run.number(name))
            let slot = try #require(run.slot(running: job))
            let generation = run.scheduler.workers[slot].generation &+ (stale ? 1 : 0)
            return run.scheduler.mayRetry(job, slot: slot, generation: generation)
        }
        #expect(try asks("a"))
        #expect(try !asks("a", stale: true), "a worker detached from its slot")
        run.timeOut("b")
        #expect(try !asks("b"), "timed out, its task not yet cancelled")
        run.finish("c", .failed)
        #expect(try asks("a"), "a failure elsewhere stops new jobs, not the attempts of running ones")
        run.cancelAll(.cancelled)
        #expect(try !asks("a"), "cancelled, its task not yet cancelled")
        run.finish("a", .cancelled)
        run.finish("b", .cancelled)
        #expect(run.isFinished)
    }

    @Test func aTimedOutJobEndsTimedOutWhenItsBodyReturns() throws {
        var workflow = Workflow()
        workflow.lane("serial", width: 1)
        try workflow.add("slow", lane: "serial") { _ in }
        try workflow.add("next", lane: "serial") { _ in }
        var run = try StepDriver(workflow, maxConcurrency: 2, keepGoing: true)
        run.begin()
        run.timeOut("slow")
        #expect(run.running == ["slow"], "the lane is held until it returns")
        run.finish("slow", .cancelled)
        #expect(run.phase("slow") == .timedOut)
        #expect(run.running == ["next"])
        run.finish("next")
        #expect(run.isFinished)
    }
}
