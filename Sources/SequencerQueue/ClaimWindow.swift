/// How many jobs a worker claims beyond its running slots: at least
/// ``DurableQueue/Options/claimAhead``, and, while its jobs are short, about as many as it ends in
/// ``span`` (up to ``maximum``). So a backlog of short jobs shares a few transactions, while a
/// claimed job still starts soon after its claim (and long jobs are not held ahead).
struct ClaimWindow: Sendable {
    /// How soon a job claimed ahead should start, at the rate jobs end.
    static let span = Duration.milliseconds(25)
    static let maximum = 1_024

    let minimum: Int
    private(set) var ahead: Int
    private var last: ContinuousClock.Instant?

    init(claimAhead: Int) {
        minimum = max(0, claimAhead)
        ahead = minimum
    }

    /// A turn recorded `ended` ends, gathered since the last turn.
    mutating func turn(ended: Int, at now: ContinuousClock.Instant) {
        defer { last = now }
        guard let last, ended > 0 else { return }
        let spans = (now - last) / Self.span
        let wanted = spans > 0 ? min(Double(Self.maximum), Double(ended) / spans) : Double(Self.maximum)
        // Halfway to the new rate (rounded up, to reach it): one quick turn does not swing it.
        ahead = min(Self.maximum, max(minimum, (ahead + Int(wanted) + 1) / 2))
    }
}
