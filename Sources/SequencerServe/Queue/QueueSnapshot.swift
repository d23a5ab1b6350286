import Foundation
import SequencerQueue

/// What the queue page shows, read from the store at one time (each part by one query).
struct QueueSnapshot: Sendable {
    /// When it was read, in milliseconds since 1970.
    let now: Int64
    let gauges: QueueGauges
    let workers: [WorkerBeat]
    /// The running jobs of each worker, by its name in leases.
    let held: [String: [DurableJob]]
    /// The jobs that ended in each minute of the last hour (``QueueChart/minutes``).
    let endings: [QueueEndings]
    /// The newest failures, and the page of them shown (before this job).
    let failed: [DurableJob]
    let failedBefore: DurableJobID?
    /// The newest live jobs, to cancel.
    let live: [DurableJob]
    /// The newest actions.
    let actions: [QueueAction]

    /// How many of each list a page shows.
    static let shown = 50
    /// The running jobs read to show whom they belong to.
    static let heldShown = 500

    static func read(_ store: any QueueConsole, now: Int64, failedBefore: DurableJobID?) async throws -> QueueSnapshot {
        let gauges = try await store.gauges(now: now)
        let workers = try await store.workers(now: now)
        let running = try await store.jobs(in: [.running], after: nil, limit: heldShown)
        let since = QueueChart.firstMinute(now: now)
        let endings = try await store.endings(since: since, bucket: QueueChart.minute)
        let failed = try await store.latestJobs(in: [.failed], before: failedBefore, limit: shown + 1)
        let live = try await store.latestJobs(in: [.waiting, .available, .running], before: nil, limit: shown)
        let actions = try await store.actions(limit: shown)
        return QueueSnapshot(
            now: now, gauges: gauges, workers: workers, held: Dictionary(grouping: running) { $0.owner ?? "" }, endings: endings,
            failed: failed, failedBefore: failedBefore, live: live, actions: actions)
    }

    /// The kinds that some live worker runs: those the page offers to enqueue.
    var kinds: [String] { Set(workers.flatMap(\.kinds)).sorted() }
}
