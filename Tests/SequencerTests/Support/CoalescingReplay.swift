import Sequencer

/// What each job with a coalescing key should have done when a worker took it, replayed from a
/// run's events by the rules of `Coalescing.md`, independently of the scheduler.
///
/// Events come in the scheduler's order, and a job's `.started` is sent when a worker takes it,
/// so the replay sees what the scheduler saw at each take:
/// - no job leads the key: the job *leads* (its body runs);
/// - the leader has ended: the job *takes its result* (no body), unless the leader was cancelled,
///   which freed the key: then the job leads;
/// - the leader runs and waits for the job: the job runs its *own body* (joining would wait
///   forever); otherwise it *joins* the leader (no body).
///
/// A job waits for its unfinished children and, when it joined a leader, for that leader: "the
/// leader waits for the job" means a chain of those leads from the leader to the job. The chain
/// is read from the events alone: a child that had not started by then has no children and
/// joined no one, so it ends a chain (it is the job taken, or leads nowhere). The scheduler also
/// follows the needs of jobs that have not started; the replay need not: in `ChildPropertyTests`
/// a child needs only earlier siblings, which the chain reaches through their parent anyway.
/// (`ChildNeedsTests` covers needs on other jobs.)
struct CoalescingReplay {
    enum Role: Equatable, CustomStringConvertible {
        case leads
        case joins(JobID)
        case takesResult(JobID)
        /// It ran its body although `leader` led the key, because of `chain`: the leader, then
        /// each job it waits for, down to this one.
        case ownBody(leader: JobID, chain: [JobID])

        var description: String {
            switch self {
            case .leads: "leads"
            case .joins(let leader): "joins \(leader)"
            case .takesResult(let leader): "takes the result of \(leader)"
            case .ownBody(let leader, let chain):
                "runs its own body: \(leader) waits for it (\(chain.map(\.description).joined(separator: " → ")))"
            }
        }

        /// Whether the job's body runs.
        var runsBody: Bool {
            switch self {
            case .leads, .ownBody: true
            case .joins, .takesResult: false
            }
        }
    }

    /// The role of each job with a key that started.
    private(set) var roles: [JobID: Role] = [:]

    private let key: (JobID) -> String?
    private let parent: (JobID) -> JobID?
    private var leaders: [String: JobID] = [:]
    private var finished: Set<JobID> = []
    /// Children that have started, by parent.
    private var startedChildren: [JobID: [JobID]] = [:]

    /// - Parameters:
    ///   - key: each job's coalescing key, or nil.
    ///   - parent: the job that added each child, or nil for a job of the workflow.
    init(events: [RunEvent], key: @escaping (JobID) -> String?, parent: @escaping (JobID) -> JobID?) {
        self.key = key
        self.parent = parent
        for event in events {
            switch event {
            case .started(let job): take(job)
            case .finished(let job, let status): end(job, status)
            case .runFinished: break
            }
        }
    }

    private mutating func take(_ job: JobID) {
        if let parent = parent(job) { startedChildren[parent, default: []].append(job) }
        guard let key = key(job) else { return }
        guard let leader = leaders[key] else {
            leaders[key] = job
            roles[job] = .leads
            return
        }
        if finished.contains(leader) {
            roles[job] = .takesResult(leader)
        } else if let chain = chain(from: leader, to: job) {
            roles[job] = .ownBody(leader: leader, chain: chain)
        } else {
            roles[job] = .joins(leader)
        }
    }

    private mutating func end(_ job: JobID, _ status: JobStatus) {
        finished.insert(job)
        // A cancelled leader frees its key.
        if status == .cancelled, let key = key(job), leaders[key] == job { leaders[key] = nil }
    }

    /// The jobs `from` waits for, one for the next, down to `to`; nil when it does not wait for it.
    private func chain(from start: JobID, to target: JobID) -> [JobID]? {
        var cameFrom: [JobID: JobID] = [:]
        var stack = [start]
        var seen: Set<JobID> = [start]
        while let current = stack.popLast() {
            var next = startedChildren[current, default: []].filter { !finished.contains($0) }
            if case .joins(let leader)? = roles[current], !finished.contains(current) { next.append(leader) }
            for job in next where seen.insert(job).inserted {
                cameFrom[job] = current
                if job == target {
                    var chain = [job]
                    while let previous = cameFrom[chain[0]] { chain.insert(previous, at: 0) }
                    return chain
                }
                stack.append(job)
            }
        }
        return nil
    }
}
