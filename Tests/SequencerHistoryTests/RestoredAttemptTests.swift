import SequencerHistory
import Testing

/// An attempt restored from the shared output cache, as every history keeps it: its exit
/// says so, and its key reads back from it; a run's restored jobs are its succeeded ones.
@Suite struct RestoredAttemptTests {
    private func attempt(_ job: String, _ number: Int, exit: String) -> HistoryAttempt {
        HistoryAttempt(job: job, attempt: number, startedAt: 10, endedAt: 20, exit: exit)
    }

    @Test func theKeyReadsBackFromTheExitAndNothingElseReadsAsRestored() {
        #expect(attempt("a", 1, exit: HistoryAttempt.restoredExit(key: "1f2e3d4c5b6a")).restoredKey == "1f2e3d4c5b6a")
        for exit in ["exit code 0", "up to date", "restored from the cache (key )", "restored from the cache (key a b)",
                     "restored from the cache (key abc", "the job said: restored from the cache (key abc)"] {
            #expect(attempt("a", 1, exit: exit).restoredKey == nil, "\(exit)")
        }
    }

    @Test func aRunsRestoredJobsAreTheSucceededOnesWhoseLastAttemptWasARestore() {
        let run = HistoryRun(id: 1, workflow: "w", state: .failed, startedAt: 0, endedAt: 30, counts: JobCounts())
        let jobs = [
            HistoryJob(name: "restored", position: 0, state: .succeeded, attempts: 1),
            HistoryJob(name: "ran", position: 1, state: .succeeded, attempts: 1),
            // Restored at its first attempt, then ran again (a resumed run): its last attempt ran.
            HistoryJob(name: "again", position: 2, state: .succeeded, attempts: 2),
            HistoryJob(name: "failed", position: 3, state: .failed, attempts: 1),
        ]
        let attempts = [
            attempt("restored", 1, exit: HistoryAttempt.restoredExit(key: "k1")),
            attempt("ran", 1, exit: "exit code 0"),
            attempt("again", 1, exit: HistoryAttempt.restoredExit(key: "k2")),
            attempt("again", 2, exit: "exit code 0"),
            attempt("failed", 1, exit: HistoryAttempt.restoredExit(key: "k3")),
        ]
        let record = RunRecord(run: run, names: jobs.map(\.name), jobs: jobs, attempts: attempts, graph: nil, workflowFile: nil)
        #expect(record.restoredKeys == ["restored": "k1"])
    }
}
