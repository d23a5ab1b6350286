import SequencerHistory
import Testing

/// The one definition of each count: every state in one count, the columns derived alike.
@Suite struct JobCountsTests {
    @Test func everyJobIsInOneCountAndTheCountsAddUpToTheJobs() {
        let states = JobState.allCases.flatMap { state in Array(repeating: state, count: state.rawValue.count) }
        let counts = JobCounts(states)
        #expect(counts.jobs == states.count)
        #expect(counts.ended + counts.unfinished == counts.jobs)
        #expect(counts.unfinished == states.count { $0.isLive })
        for state in JobState.allCases where !state.isLive {
            var one = JobCounts()
            one.add(state)
            #expect(one.ended == 1 && one.unfinished == 0, "\(state)")
        }
    }

    /// FAILED is failed or timed out; cancelled and skipped jobs are not failures, and
    /// up-to-date jobs did not run.
    @Test func failuresAreFailedOrTimedOutJobsOnly() {
        let counts = JobCounts([.succeeded, .upToDate, .failed, .timedOut, .timedOut, .cancelled, .skipped, .pending])
        #expect(counts.failures == 3)
        #expect(counts.ran == 5)
        #expect(counts.text == "1 succeeded, 1 up to date, 1 failed, 1 skipped, 1 cancelled, 2 timed out, 1 unfinished")
        #expect(JobCounts().text == "no jobs")
    }
}
