internal import Sequencer

/// Values kept until the process exits, so that they are never freed: a run of a large file
/// ends with tens of thousands of jobs, fingerprints and file hashes in memory, and freeing
/// them one by one just before `exit` took about a tenth of a no-op run (as `clang
/// -disable-free` does for the same reason). Only for what lives until the command ends anyway.
package enum ProcessLifetime {
    private static let kept = Locked<[any Sendable]>([])

    /// Keeps `value` (and what it holds) alive until the process exits.
    package static func keep(_ value: some Sendable) {
        kept.withLock { $0.append(value) }
    }
}
