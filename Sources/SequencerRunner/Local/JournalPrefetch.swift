internal import Sequencer
import Foundation
package import SequencerJournal
import SequencerHistory

/// The journal of a run, opened and read on a thread of its own while the workflow file loads:
/// at 10,000 jobs, reading the fingerprints takes as long as loading the file, and a no-op run
/// does little else. Only a journal that exists is opened (opening creates one), and what was
/// read is used only if nothing was written to the journal since (another process's run).
///
/// ```swift
/// let prefetch = JournalPrefetch(path: options.path(beside: directory), workflow: key)
/// let file = try CompiledWorkflow.load(path)            // meanwhile, the journal is read
/// let journal = prefetch?.journal ?? try options.openForRun(beside: directory)
/// ```
package final class JournalPrefetch: Sendable {
    /// What the thread read: the fingerprints without their parts (enough to tell whether every
    /// job is up to date, not to explain why one is not).
    package struct Read: Sendable {
        package let journal: SQLiteJournal
        let version: Int
        let fingerprints: [String: Fingerprint]
        let fileHashes: [String: (stamp: FileStamp, hash: String)]
    }

    private let done = DispatchSemaphore(value: 0)
    private let result = Locked<Read?>(nil)

    /// Starts reading the journal at `path` (when there is one) for the workflow `workflow`.
    package init?(path: String, workflow: String) {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let thread = Thread { [self] in
            // Any failure is left to the usual opening, which reports it.
            if let journal = try? SQLiteJournal(path: path), let version = try? journal.dataVersion(),
               let fingerprints = try? journal.fingerprints(workflow: workflow, withParts: false),
               let hashes = try? journal.fileHashes() {
                result.withLock { $0 = Read(journal: journal, version: version, fingerprints: fingerprints, fileHashes: hashes) }
            }
            done.signal()
        }
        thread.name = "sequencer-journal-prefetch"
        thread.start()
    }

    /// The directory of the workflow file at `path`, as a loaded file has it (its `directory`):
    /// where its journal is, by default. The caller checks it against the loaded file's.
    package static func directory(ofFile path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    /// The journal the thread opened, once it has; nil if it could not be read.
    package var journal: SQLiteJournal? { wait()?.journal }

    /// What was read, if nothing was written to the journal since (ask once this process
    /// holds the journal's writer lock, so that nothing can be written until the run's end).
    package func current() -> Read? {
        guard let read = wait(), (try? read.journal.dataVersion()) == read.version else { return nil }
        return read
    }

    private func wait() -> Read? {
        done.wait()
        done.signal()
        return result.withLock { $0 }
    }
}
