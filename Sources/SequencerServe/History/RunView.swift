import Foundation
public import SequencerJournal

/// A run as its page shows it: every job of the run in the file's order (those the journal
/// has not heard of yet as pending), with its lane, needs and attempts, and the critical path.
public struct RunView: Sendable {
    public let run: JournalRun
    public let state: String
    /// The jobs, in the order the page lists them; their positions are the page's indices.
    public internal(set) var jobs: [Job]
    public let lanes: [JournalGraph.Lane]
    /// The lanes, needs and commands: the run's own (`graphRecorded`), or, for a run recorded
    /// before the journal kept graphs and a queue's, the file's as it is now; nil when there is
    /// none (`fileProblem` says why).
    public let graph: JournalGraph?
    /// Whether ``graph`` is the one the run recorded rather than the file's as it is now.
    public let graphRecorded: Bool
    public let fileProblem: String?
    /// The indices of the critical path's jobs, in order.
    public let critical: [Int]
    /// Where a queue's run was submitted from (`HOST:PATH`); nil for a journal's.
    public var origin: String?
    private let index: [String: Int]

    public struct Job: Sendable {
        public let name: String
        /// `pending` for a job of the run that has not started.
        public var status: String
        public var record: JournalJob?
        public let lane: Int?
        public let needs: [Int]
        public var attempts: [JournalAttempt]
        /// The graph's declaration of it, when the graph has the job.
        public let declared: JournalGraph.Job?
        /// The worker that ran each attempt, by attempt number (a queue's runs).
        public var workers: [Int: String] = [:]
        /// Its durable job's ID (a queue's runs).
        public var queueID: Int64?
    }

    init(
        run: JournalRun, state: String, names: [String], jobs records: [JournalJob], attempts: [JournalAttempt],
        graph: JournalGraph?, graphRecorded: Bool, fileProblem: String?, critical: [String]
    ) {
        self.run = run
        self.state = state
        self.graph = graph
        self.graphRecorded = graphRecorded
        self.fileProblem = fileProblem
        lanes = graph?.lanes ?? []
        var declared: [String: JournalGraph.Job] = [:]
        for job in graph?.jobs ?? [] where declared[job.name] == nil { declared[job.name] = job }
        // The run's jobs (its sessions' names), then children added as it ran.
        var order = names
        var index: [String: Int] = [:]
        for (position, name) in order.enumerated() { index[name] = position }
        for record in records where index[record.name] == nil {
            index[record.name] = order.count
            order.append(record.name)
        }
        var byName: [String: JournalJob] = [:]
        for record in records { byName[record.name] = record }
        var attemptsByJob: [String: [JournalAttempt]] = [:]
        for attempt in attempts { attemptsByJob[attempt.job, default: []].append(attempt) }
        let laneIndex = Dictionary(lanes.enumerated().map { ($1.name, $0) }) { first, _ in first }
        self.jobs = order.map { name in
            let declaration = declared[name]
            let record = byName[name]
            return Job(
                name: name, status: record?.status ?? "pending", record: record,
                lane: declaration?.lane.flatMap { laneIndex[$0] },
                needs: (declaration?.needs ?? []).compactMap { index[$0] },
                attempts: attemptsByJob[name] ?? [], declared: declaration)
        }
        self.index = index
        self.critical = critical.compactMap { index[$0] }
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
