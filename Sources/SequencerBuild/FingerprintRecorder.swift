public import SequencerJournal

/// Where ``UpToDate`` records the fingerprint of a job that succeeded: the journal
/// (`JournalRecorder`), or the store of a durable queue shared by workers.
public protocol FingerprintRecorder: Sendable {
    func recordFingerprint(job: String, fingerprint: String, parts: [String: String], outputs: [String: String])

    /// Records that a job was checked as it was about to start: its fingerprint, and why it
    /// runs (`--explain`'s words; nil: up to date). Recorders that keep no checks ignore it.
    func recordCheck(job: String, fingerprint: String, reason: String?)
}

extension FingerprintRecorder {
    public func recordCheck(job: String, fingerprint: String, reason: String?) {}
}

extension JournalRecorder: FingerprintRecorder {}
