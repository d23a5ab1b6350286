internal import Sequencer
import Foundation
import SequencerJournal
import SequencerWorkflowFile
import Synchronization

/// The outputs of every job checked on a thread of its own, while the caller computes the
/// fingerprints: the checks are independent of each other and of the fingerprints, and a pass
/// over a large file spends a third of its time in `stat`.
final class OutputCheck: Sendable {
    private let failure = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let collected = Locked<[UpToDateState.File]>([])

    /// Starts checking `jobs`: `unchanged` says whether a job's outputs are as its last
    /// success left them, and notes the outputs it looked at in its last argument when
    /// `collecting` (nil otherwise).
    init(
        jobs: [WorkflowFile.Job], collecting: Bool = false,
        unchanged: @escaping @Sendable (WorkflowFile.Job, StampReader, inout [UpToDateState.File]?) -> Bool
    ) {
        let thread = Thread { [self] in
            let reader = StampReader()
            var seen: [UpToDateState.File]? = collecting ? [] : nil
            for job in jobs {
                guard !stopped.load(ordering: .relaxed) else { break }
                if !unchanged(job, reader, &seen) {
                    failure.store(true, ordering: .relaxed)
                    break
                }
            }
            if let seen { collected.withLock { $0 = seen } }
            done.signal()
        }
        thread.name = "sequencer-output-check"
        thread.start()
    }

    /// The outputs looked at, with their stamps, once the checks have ended (when collecting).
    var seen: [UpToDateState.File] {
        done.wait()
        done.signal()
        return collected.withLock { $0 }
    }

    /// Whether a job's outputs were found changed (or missing) so far.
    var failed: Bool { failure.load(ordering: .relaxed) }

    /// Waits for the checks to end; whether every job's outputs are unchanged.
    func allUnchanged() -> Bool {
        done.wait()
        done.signal()  // so that `stop()` returns too
        return !failure.load(ordering: .relaxed)
    }

    /// Stops the checks and waits for their thread to end.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        done.wait()
        done.signal()
    }
}
