/// The job states as the stores' SQL writes them (`state = \(SQLState.running)`), so that no
/// statement spells a state as a bare number. The numbers are ``DurableJobState``'s raw values,
/// which both stores keep in `jobs.state`; their order matters: live states come first.
///
/// The schemas' released migrations keep their literals: a released migration never changes.
package enum SQLState {
    package static let waiting = literal(.waiting)
    package static let available = literal(.available)
    package static let running = literal(.running)
    package static let succeeded = literal(.succeeded)
    package static let failed = literal(.failed)
    package static let cancelled = literal(.cancelled)
    package static let skipped = literal(.skipped)

    /// A job that has not ended: waiting, available or running.
    package static let isLive = "state <= \(running)"
    /// A job that has not started: waiting or available.
    package static let isPending = "state <= \(available)"
    /// A job that has ended, however.
    package static let hasEnded = "state >= \(succeeded)"

    private static func literal(_ state: DurableJobState) -> String { String(state.rawValue) }
}
