import Foundation
public import SequencerHistory
import SequencerJournal

/// A run as its page shows it: every job of the run in the file's order (those its history has
/// not heard of yet as pending), with its lane, needs and attempts, and the critical path.
public struct RunView: Sendable {
    public let run: HistoryRun
    /// The run's state, as the pages write it.
    public var state: String { run.state.rawValue }
    /// The jobs, in the order the page lists them; their positions are the page's indices.
    public internal(set) var jobs: [Job]
    public let lanes: [HistoryGraph.Lane]
    /// The lanes, needs and commands: the run's own (`graphRecorded`), or, for a run recorded
    /// before the journal kept graphs and a queue's, the file's as it is now; nil when there is
    /// none (`fileProblem` says why).
    public let graph: HistoryGraph?
    /// Whether ``graph`` is the one the run recorded rather than the file's as it is now.
    public let graphRecorded: Bool
    public let fileProblem: String?
    /// The indices of the critical path's jobs, in order.
    public let critical: [Int]
    /// Whether the run checked its jobs (so each job's reason says why it ran); nil when not
    /// known (a run older than the journal's checks).
    public let checked: Bool?
    private let index: [String: Int]
    /// The run as its history read it: what an attempt's output is read from.
    let record: RunRecord

    /// Where a queue's run was submitted from (`HOST:PATH`); nil for a journal's.
    public var origin: String? { run.origin }

    public struct Job: Sendable {
        public let name: String
        /// `pending` for a job of the run that has not started.
        public var status: String
        public var record: HistoryJob?
        public let lane: Int?
        public let needs: [Int]
        public var attempts: [HistoryAttempt]
        /// The graph's declaration of it, when the graph has the job.
        public let declared: HistoryGraph.Job?
        /// The cache key its outputs were restored from, when it succeeded by a restore from the
        /// shared output cache (nothing ran); nil otherwise.
        public var restoredFrom: String? {
            guard status == JobState.succeeded.rawValue else { return nil }
            return attempts.max { $0.attempt < $1.attempt }?.restoredKey
        }
        /// The worker that ran each attempt, by attempt number (a queue's runs).
        public var workers: [Int: String] {
            var workers: [Int: String] = [:]
            for attempt in attempts { if let worker = attempt.worker { workers[attempt.attempt] = worker } }
            return workers
        }
    }

    /// The view of `record`, drawn with `graph` (the run's own when `graphRecorded`).
    init(record: RunRecord, graph: HistoryGraph?, graphRecorded: Bool, fileProblem: String?) {
        run = record.run
        self.record = record
        self.graph = graph
        self.graphRecorded = graphRecorded
        self.fileProblem = fileProblem
        checked = record.checked
        lanes = graph?.lanes ?? []
        var declared: [String: HistoryGraph.Job] = [:]
        for job in graph?.jobs ?? [] where declared[job.name] == nil { declared[job.name] = job }
        // The run's jobs (its sessions' names), then children added as it ran.
        var order = record.names
        var index: [String: Int] = [:]
        for (position, name) in order.enumerated() { index[name] = position }
        for job in record.jobs where index[job.name] == nil {
            index[job.name] = order.count
            order.append(job.name)
        }
        var byName: [String: HistoryJob] = [:]
        for job in record.jobs { byName[job.name] = job }
        var attemptsByJob: [String: [HistoryAttempt]] = [:]
        for attempt in record.attempts { attemptsByJob[attempt.job, default: []].append(attempt) }
        let laneIndex = Dictionary(lanes.enumerated().map { ($1.name, $0) }) { first, _ in first }
        self.jobs = order.map { name in
            let declaration = declared[name]
            let job = byName[name]
            return Job(
                name: name, status: job?.state.rawValue ?? JobState.pending.rawValue, record: job,
                lane: declaration?.lane.flatMap { laneIndex[$0] },
                needs: (declaration?.needs ?? []).compactMap { index[$0] },
                attempts: attemptsByJob[name] ?? [], declared: declaration)
        }
        self.index = index
        self.critical = graph.map { record.criticalPath(graph: $0).compactMap { index[$0.job.rawValue] } } ?? []
    }

    public func job(named name: String) -> Job? { index[name].map { jobs[$0] } }

    public func position(of name: String) -> Int? { index[name] }

    /// The jobs that need each job, by index.
    public var dependents: [[Int]] {
        var dependents = [[Int]](repeating: [], count: jobs.count)
        for (position, job) in jobs.enumerated() {
            for need in job.needs { dependents[need].append(position) }
        }
        return dependents
    }

    /// Milliseconds from the run's start.
    func offset(_ time: Int64?) -> Double? { time.map { Double($0 - run.startedAt) / 1e6 } }
}
