/// What a runner does with an action's key after a miss, when runners coalesce (``ActionCache/Coalescing``):
/// it claims the key and runs the action; or, while another runner holds the claim, waits,
/// looking for that runner's result, and restores it once stored; or runs the action after all
/// when the claim is given up without a result (it failed, or was stopped), when claims cannot
/// be made, or when it waited too long.
///
/// A value of its own, with no clock and no store: ``ActionCache`` does each step it asks for and
/// tells it what came of it, so that the protocol is tested as sequences of calls.
struct ClaimWait {
    /// What to do next.
    enum Step: Equatable {
        /// Claim the key (or find it held).
        case claim
        /// Say that another runner holds it, and wait `poll` (said once, the first time).
        case wait(say: Bool)
        /// Look for the other runner's result.
        case lookUp
        /// Restore the result found.
        case restore
        /// Run the action: holding the claim, or without one.
        case run(claimed: Bool)
    }

    /// What came of a step.
    enum Answer {
        /// The claim was made (`won`) or found held, at `elapsed` since the miss.
        case claimed(won: Bool, elapsed: Duration)
        /// The claim could not be made (the store failed).
        case claimFailed
        /// The wait ended: the poll's time passed, or it was cancelled.
        case waited(cancelled: Bool)
        /// The look-up found a complete result, or not.
        case lookedUp(found: Bool)
    }

    /// The longest a runner waits before it runs the action itself.
    let longestWait: Duration
    private var said = false
    private(set) var step = Step.claim

    init(longestWait: Duration) {
        self.longestWait = longestWait
    }

    /// The step after `answer`, which answers the current ``step``.
    @discardableResult
    mutating func next(_ answer: Answer) -> Step {
        switch (step, answer) {
        case (.claim, .claimed(true, _)):
            step = .run(claimed: true)
        case (.claim, .claimed(false, let elapsed)):
            if elapsed >= longestWait {
                step = .run(claimed: false)
            } else {
                step = .wait(say: !said)
                said = true
            }
        case (.claim, .claimFailed), (.wait, .waited(cancelled: true)):
            step = .run(claimed: false)
        case (.wait, .waited(cancelled: false)):
            step = .lookUp
        case (.lookUp, .lookedUp(found: true)):
            step = .restore
        case (.lookUp, .lookedUp(found: false)):
            step = .claim
        default:
            // An answer to another step than the one asked for: a caller's mistake, never the
            // store's; the action runs, as it does whenever coalescing cannot go on.
            assertionFailure("ClaimWait: \(answer) does not answer \(step)")
            step = .run(claimed: false)
        }
        return step
    }
}
