import Testing
@testable import SequencerQueue

/// What both stores write into a job's row: one encoding of a retry policy, one message.
@Suite struct StoreTextTests {
    @Test func aRetryPolicyRoundTripsThroughItsStoredText() {
        let retry = StoredRetry(maxAttempts: 5, initialMilliseconds: 1000, multiplier: 2.5, maximumMilliseconds: 30_000, jitter: 0.1)
        #expect(retry.stored == "5 1000 2.5 30000 0.1")
        #expect(StoredRetry(stored: retry.stored) == retry)
        #expect(StoredRetry.none.stored == nil && StoredRetry(stored: nil) == .none)
        // Written by hand, or by an older build: no retry, never a crash.
        for text in ["", "5 1000", "five 1000 2 30000 0.1", "{\"maxAttempts\":5}", "5 1000 2 30000 0.1 9"] {
            #expect(StoredRetry(stored: text) == .none, "\(text)")
        }
    }

    @Test func aSkippedJobSaysWhichNeedDidNotSucceed() {
        #expect(StoreText.needFailed(7) == "job #7, which it needs, did not succeed")
        #expect(StoreText.needFailedSQL("gone.need") == "'job #' || gone.need || ', which it needs, did not succeed'")
    }
}
