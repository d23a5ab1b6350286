import Foundation
public import SequencerJournal
public import SequencerWorkflowFile

/// A run as its page shows it: every job of the run in the file's order (those the journal
/// has not heard of yet as pending), with its lane, needs and attempts, and the critical path.
public struct RunView: Sendable {
    public let run: JournalRun
    public let state: String
    /// The jobs, in the order the page lists them; their positions are the page's indices.
    public internal(set) var jobs: [Job]
    public let lanes: [WorkflowFile.Lane]
    /// The file as it is now; nil when it cannot be read (`fileProblem` says why).
    public let file: WorkflowFile?
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
        /// The file's declaration, when the file has the job.
        public let declared: WorkflowFile.Job?
        /// The worker that ran each attempt, by attempt number (a queue's runs).
        public var workers: [Int: String] = [:]
        /// Its durable job's ID (a queue's runs).
        public var queueID: Int64?
    }

    init(
        run: JournalRun, state: String, names: [String], jobs records: [JournalJob], attempts: [JournalAttempt],
        file: WorkflowFile?, fileProblem: String?, critical: [String]
    ) {
        self.run = run
        self.state = state
        self.file = file
        self.fileProblem = fileProblem
        lanes = file?.lanes ?? []
        var declared: [String: WorkflowFile.Job] = [:]
        for job in file?.jobs ?? [] where declared[job.name] == nil { declared[job.name] = job }
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
        let laneIndex = Dictionary((file?.lanes ?? []).enumerated().map { ($1.name, $0) }) { first, _ in first }
        self.jobs = order.map { name in
            let declaration = declared[name]
            let record = byName[name]
            return Job(
                name: name, status: record?.status ?? "pending", record: record,
                lane: declaration?.lane.flatMap { laneIndex[$0] },
                needs: (declaration?.needs ?? []).compactMap { index[$0.name] },
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
