/// What both stores write into a job's row, in one place: the messages and the encodings, so
/// that the SQLite and the PostgreSQL queue keep the same text for the same thing.
package enum StoreText {
    /// Why a job was skipped: `job #7, which it needs, did not succeed`.
    package static func needFailed(_ cause: Int64) -> String { "job #\(cause), which it needs, did not succeed" }

    /// ``needFailed(_:)`` as an SQL expression, of the expression that holds the cause's ID.
    package static func needFailedSQL(_ cause: String) -> String { "'job #' || \(cause) || ', which it needs, did not succeed'" }
}

extension StoredRetry {
    /// The policy as both stores keep it in `jobs.retry`: its five numbers, separated by spaces
    /// (`5 1000 2.0 30000 0.1`); nil for no retry.
    package var stored: String? {
        self == .none ? nil : "\(maxAttempts) \(initialMilliseconds) \(multiplier) \(maximumMilliseconds) \(jitter)"
    }

    /// A policy as a store kept it (see ``stored``). A column that does not parse (written by
    /// hand, say) is no retry, never a crash.
    package init(stored text: String?) {
        guard let parts = text?.split(separator: " "), parts.count == 5,
              let attempts = Int(parts[0]), let initial = Int64(parts[1]), let multiplier = Double(parts[2]),
              let maximum = Int64(parts[3]), let jitter = Double(parts[4])
        else {
            self = .none
            return
        }
        self.init(maxAttempts: attempts, initialMilliseconds: initial, multiplier: multiplier, maximumMilliseconds: maximum, jitter: jitter)
    }
}
