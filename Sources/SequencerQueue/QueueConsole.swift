import Foundation

/// What the queue page of `sequencer serve --queue` reads and does, beyond ``QueueStore``: the
/// depth now, the jobs that ended lately, and an operator's actions on one job, each recorded.
///
/// Both stores conform. Every read is one query of the database, right whatever process asks;
/// every action is one transaction, which changes a job only from the state it names (a job
/// retried while another page discards it is one or the other, never both).
public protocol QueueConsole: QueueStore {
    /// The live jobs by kind, lane and state, the oldest available ones, and the workers
    /// alive: what ``readGauges(reader:now:holdUntil:)`` reads, without taking its hold.
    func gauges(now: Int64) async throws -> QueueGauges

    /// How many jobs ended in each `bucket` milliseconds from `since` on, by their end state.
    /// Pruned jobs are not counted.
    func endings(since: Int64, bucket: Int64) async throws -> [QueueEndings]

    /// Jobs in `states`, newest first; those before `before` when given (the next page).
    func latestJobs(in states: [DurableJobState], before: DurableJobID?, limit: Int) async throws -> [DurableJob]

    /// A failed job runs again: it becomes available now with its error cleared and its crashes
    /// forgotten, keeping its attempts (its attempt log goes on, and a retry policy's attempts
    /// are spent: it gets this one). The jobs it skipped stay skipped.
    /// - Returns: Nil when done; else why not (no such job, not failed, its key taken).
    func retry(_ id: DurableJobID, now: Int64) async throws -> String?

    /// An ended job that is not a run's (failed, cancelled or skipped) is deleted.
    /// - Returns: Nil when done; else why not.
    func discard(_ id: DurableJobID) async throws -> String?

    /// Records what an operator did.
    func record(_ action: QueueAction) async throws

    /// The actions recorded, newest first.
    func actions(limit: Int) async throws -> [QueueAction]
}

/// How many jobs ended in one span of time (``QueueConsole/endings(since:bucket:)``).
public struct QueueEndings: Sendable, Hashable {
    /// Where the span begins, in milliseconds since 1970.
    public var start: Int64
    /// How many ended in each end state (succeeded, failed, cancelled, skipped); none absent.
    public var counts: [DurableJobState: Int]

    public init(start: Int64, counts: [DurableJobState: Int]) {
        self.start = start
        self.counts = counts
    }
}

/// One thing an operator did to a queue, from its page: who, when, from where, to what.
public struct QueueAction: Sendable, Hashable, Codable {
    /// In milliseconds since 1970.
    public var at: Int64
    /// `retry`, `discard`, `cancel` or `enqueue`.
    public var action: String
    /// The job acted on, or enqueued.
    public var job: DurableJobID?
    /// Who: the user that serves the page (who holds its token), and the browser's name.
    public var who: String
    /// From where: the address the request came from.
    public var address: String
    /// What came of it: `done`, or why not.
    public var result: String

    public init(at: Int64, action: String, job: DurableJobID?, who: String, address: String, result: String) {
        self.at = at
        self.action = action
        self.job = job
        self.who = who
        self.address = address
        self.result = result
    }
}

extension QueueGauges {
    /// Adds one row of the live jobs' counts: `kind`, `lane`, the stored state, whether its
    /// run time is later than the reading, how many, and since when the oldest available could run.
    package mutating func add(kind: String, lane: String, stored: Int, later: Bool, count: Int, since: Int64?) {
        let group = Group(kind: kind, lane: lane)
        guard let state = State(stored: stored, later: later) else { return }
        depth[group, default: [:]][state, default: 0] += count
        if let since { oldestAvailableSince[group] = min(since, oldestAvailableSince[group] ?? since) }
    }
}

extension QueueEndings {
    /// Rows of (bucket start, stored end state, count), ordered by bucket, as spans.
    package static func grouped(_ rows: [(Int64, Int, Int)]) -> [QueueEndings] {
        var spans: [QueueEndings] = []
        for (start, raw, count) in rows {
            guard let state = DurableJobState(rawValue: raw) else { continue }
            if spans.last?.start != start { spans.append(QueueEndings(start: start, counts: [:])) }
            spans[spans.count - 1].counts[state, default: 0] += count
        }
        return spans
    }
}

/// Why a store refuses a console action, in the words both stores use: nil when the action may
/// go on. Each store reads what these judge in the action's own transaction.
package enum ConsoleRefusal {
    /// A retry of job `id`, in state `raw` (nil: there is no such job): only a failed job.
    package static func retry(_ id: DurableJobID, state raw: Int?) -> String? {
        guard let raw else { return "there is no job \(id)" }
        guard raw == DurableJobState.failed.rawValue else { return "job \(id) is \(name(raw)), not failed" }
        return nil
    }

    /// A retry of job `id`, whose `key` a live job `holder` (if any) holds.
    package static func retry(_ id: DurableJobID, key: String, heldBy holder: Int64?) -> String? {
        holder.map { "job \(id)'s key '\(key)' is held by live job \(DurableJobID($0))" }
    }

    /// A discard of job `id`, in state `raw` (nil: there is no such job), of run `run` (if any):
    /// only a failed, cancelled or skipped job, and not one of a run.
    package static func discard(_ id: DurableJobID, state raw: Int?) -> String? {
        guard let raw else { return "there is no job \(id)" }
        guard raw > DurableJobState.succeeded.rawValue, DurableJobState(rawValue: raw) != nil else {
            return "job \(id) is \(name(raw)): only a failed, cancelled or skipped job is discarded"
        }
        return nil
    }

    /// A discard of job `id`, a job of run `run` (if any): it stays with its run.
    package static func discard(_ id: DurableJobID, run: Int64?) -> String? {
        run.map { "job \(id) is a job of run #\($0): it stays with its run" }
    }

    private static func name(_ raw: Int) -> String {
        DurableJobState(rawValue: raw).map(String.init(describing:)) ?? "unknown"
    }
}
