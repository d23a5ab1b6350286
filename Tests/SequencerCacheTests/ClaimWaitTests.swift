@testable import SequencerCache
import Testing

/// The claim protocol of a miss, step by step (``ClaimWait``): claim and run; wait for the
/// holder's result and restore it; run after all when the claim is given up, cannot be made,
/// or was waited on too long.
@Suite struct ClaimWaitTests {
    @Test func aClaimWonAtOnceRunsHoldingIt() {
        var wait = ClaimWait(longestWait: .seconds(60))
        #expect(wait.step == .claim)
        #expect(wait.next(.claimed(won: true, elapsed: .zero)) == .run(claimed: true))
    }

    @Test func aWaiterSaysSoOnceLooksAfterEachPollAndRestoresTheHoldersResult() {
        var wait = ClaimWait(longestWait: .seconds(60))
        #expect(wait.next(.claimed(won: false, elapsed: .milliseconds(1))) == .wait(say: true))
        #expect(wait.next(.waited(cancelled: false)) == .lookUp)
        #expect(wait.next(.lookedUp(found: false)) == .claim)
        #expect(wait.next(.claimed(won: false, elapsed: .milliseconds(200))) == .wait(say: false))
        #expect(wait.next(.waited(cancelled: false)) == .lookUp)
        #expect(wait.next(.lookedUp(found: true)) == .restore)
    }

    /// The holder gave its claim up without a result (its action failed, or it was stopped):
    /// the waiter's next claim is won, and it runs the action itself.
    @Test func aClaimGivenUpWithoutAResultIsWonByTheWaiter() {
        var wait = ClaimWait(longestWait: .seconds(60))
        wait.next(.claimed(won: false, elapsed: .zero))
        wait.next(.waited(cancelled: false))
        #expect(wait.next(.lookedUp(found: false)) == .claim)
        #expect(wait.next(.claimed(won: true, elapsed: .seconds(3))) == .run(claimed: true))
    }

    @Test func aWaiterRunsTheActionItselfOnceItWaitedTheLongest() {
        var wait = ClaimWait(longestWait: .seconds(10))
        #expect(wait.next(.claimed(won: false, elapsed: .seconds(9))) == .wait(say: true))
        wait.next(.waited(cancelled: false))
        wait.next(.lookedUp(found: false))
        #expect(wait.next(.claimed(won: false, elapsed: .seconds(10))) == .run(claimed: false))
    }

    @Test func aClaimThatCannotBeMadeOrAWaitCancelledRunsWithoutAClaim() {
        var failed = ClaimWait(longestWait: .seconds(60))
        #expect(failed.next(.claimFailed) == .run(claimed: false))
        var cancelled = ClaimWait(longestWait: .seconds(60))
        cancelled.next(.claimed(won: false, elapsed: .zero))
        #expect(cancelled.next(.waited(cancelled: true)) == .run(claimed: false))
    }

    /// A claim lost again after a look-up that found nothing goes on waiting, and never says
    /// so twice, however many rounds it takes.
    @Test func manyRoundsSayTheWaitOnce() {
        var wait = ClaimWait(longestWait: .seconds(3600))
        var said = 0
        for round in 0..<1_000 {
            if case .wait(let say) = wait.next(.claimed(won: false, elapsed: .milliseconds(200 * round))), say { said += 1 }
            wait.next(.waited(cancelled: false))
            wait.next(.lookedUp(found: false))
        }
        #expect(said == 1)
        #expect(wait.step == .claim)
    }
}
