/// The chain of jobs that decided a run's wall time, and the rule that finds it.
///
/// The path ends at the job that ended last and walks back. Each job's **predecessor** is the
/// job that let it start when it did:
/// - when it waited for a worker, or for a slot of its lane, after its needs had ended, the job
///   whose end freed that slot (the job that ended last before it started, after its needs had
///   ended; one of its own lane first when several ended at that moment);
/// - otherwise the need that ended last (for a child, its parent when the parent started later
///   than its needs ended).
///
/// Jobs that were up to date or restored from an earlier session take no time: the walk passes
/// through them, and they are not on the path. The rule reads only the jobs' needs, lanes and
/// times, so a run recorded in a journal gives the same path as the live report
/// (``steps(of:)``).
///
/// ```swift
/// for step in report.criticalPathSteps {
///     print(step.job, step.endedAt - step.startedAt, step.wait)
/// }
/// ```
public enum CriticalPath {
    /// One job on the critical path.
    public struct Step: Sendable, Hashable, CustomStringConvertible {
        /// The job.
        public let job: JobID
        /// When it could have started: its needs had ended (or, for a child, its parent had
        /// started); zero for a job that needs nothing. Offsets from the run's start.
        public let readyAt: Duration
        public let startedAt: Duration
        public let endedAt: Duration
        /// Why it did not start at ``readyAt``, when it did not.
        public let wait: Wait

        /// From when it could have started until it started.
        public var queued: Duration { startedAt - readyAt }

        public var description: String {
            var text = "\(job) (\(startedAt)–\(endedAt))"
            if case .slot(let freedBy, let lane) = wait {
                text += ", queued \(queued) for " + (lane.map { "lane '\($0)'" } ?? "a worker") + " until '\(freedBy)' ended"
            }
            return text
        }
    }

    /// What a job on the path waited for after its needs had ended.
    public enum Wait: Sendable, Hashable {
        /// Nothing: it started when its needs ended (any gap is the scheduler's own latency).
        case none
        /// A free slot: a worker (`lane` nil) or a slot of its lane, which `freedBy` held
        /// until it ended. `freedBy` is the step before it on the path.
        case slot(freedBy: JobID, lane: String?)
    }

    /// A job of a finished run, as a schedule records it: the input of ``steps(of:)``.
    public struct Job: Sendable, Hashable {
        public var id: JobID
        public var needs: [JobID]
        public var lane: String?
        /// The job that added it while it ran, for a child.
        public var parent: JobID?
        /// Nil for a job that never started.
        public var startedAt: Duration?
        public var endedAt: Duration?
        /// Up to date, or restored from an earlier session: it takes no time on the path.
        public var tookNoTime: Bool

        public init(
            id: JobID, needs: [JobID] = [], lane: String? = nil, parent: JobID? = nil,
            startedAt: Duration?, endedAt: Duration?, tookNoTime: Bool = false
        ) {
            self.id = id
            self.needs = needs
            self.lane = lane
            self.parent = parent
            self.startedAt = startedAt
            self.endedAt = endedAt
            self.tookNoTime = tookNoTime
        }
    }

    /// The critical path of a schedule, in execution order: what ``RunReport/criticalPathSteps``
    /// holds for a run of these jobs with these times. Needs and parents that name no job of
    /// `jobs` are ignored.
    ///
    /// - Complexity: O(n log n) for n jobs, to order them by their ends; then O(needs + log n)
    ///   per job on the path.
    public static func steps(of jobs: [Job]) -> [Step] {
        var positions: [JobID: Int] = [:]
        positions.reserveCapacity(jobs.count)
        for (position, job) in jobs.enumerated() where positions[job.id] == nil { positions[job.id] = position }
        var laneNumbers: [String: Int] = [:]
        for job in jobs { if let lane = job.lane, laneNumbers[lane] == nil { laneNumbers[lane] = laneNumbers.count } }
        let needs = jobs.map { $0.needs.compactMap { positions[$0] } }
        let schedule = Schedule(
            count: jobs.count,
            startedAt: { jobs[$0].startedAt.map(nanoseconds) },
            endedAt: { jobs[$0].endedAt.map(nanoseconds) ?? -1 },
            needs: { needs[$0] },
            lane: { jobs[$0].lane.flatMap { laneNumbers[$0] } },
            parent: { jobs[$0].parent.flatMap { positions[$0] } },
            tookNoTime: { jobs[$0].tookNoTime })
        return schedule.criticalPath(id: { jobs[$0].id }, laneName: { jobs[$0].lane })
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}

/// A finished run's jobs, read through closures so that a run's record and a journal's rows
/// share one implementation of the rule. Times are nanoseconds from the run's start.
struct Schedule {
    let count: Int
    /// Nil for a job that never started.
    let startedAt: (Int) -> Int64?
    let endedAt: (Int) -> Int64
    let needs: (Int) -> [Int]
    /// A number per lane, or nil.
    let lane: (Int) -> Int?
    let parent: (Int) -> Int?
    let tookNoTime: (Int) -> Bool

    /// See ``CriticalPath``.
    func criticalPath(id: (Int) -> JobID, laneName: (Int) -> String?) -> [CriticalPath.Step] {
        // Every job that started, by when it ended, then when it started, then position.
        var ran: [(end: Int64, start: Int64, job: Int)] = []
        ran.reserveCapacity(count)
        for job in 0..<count { if let start = startedAt(job) { ran.append((endedAt(job), start, job)) } }
        ran.sort { ($0.end, $0.start, $0.job) < ($1.end, $1.start, $1.job) }
        guard var job = ran.last?.job else { return [] }

        var onPath = [Bool](repeating: false, count: count)
        var steps: [CriticalPath.Step] = []
        while !onPath[job], let start = startedAt(job) {
            onPath[job] = true
            var ready: Int64 = 0
            var before: Int?
            for need in needs(job) where !onPath[need] {
                guard let needStart = startedAt(need), endedAt(need) <= start else { continue }
                if let best = before, (endedAt(need), needStart, need) <= (endedAt(best), startedAt(best) ?? -1, best) { continue }
                before = need
                ready = endedAt(need)
            }
            if let parent = parent(job), !onPath[parent], let parentStart = startedAt(parent),
               parentStart <= start, before == nil || parentStart > ready {
                before = parent
                ready = parentStart
            }
            let freer = freedSlot(for: job, start: start, after: ready, in: ran, skipping: onPath)
            if !tookNoTime(job) {
                var wait = CriticalPath.Wait.none
                if let freer {
                    let sameLane = lane(job) != nil && lane(freer) == lane(job)
                    wait = .slot(freedBy: id(freer), lane: sameLane ? laneName(job) : nil)
                }
                steps.append(CriticalPath.Step(
                    job: id(job), readyAt: .nanoseconds(ready), startedAt: .nanoseconds(start),
                    endedAt: .nanoseconds(endedAt(job)), wait: wait))
            }
            guard let next = freer ?? before else { break }
            job = next
        }
        return steps.reversed()
    }

    /// The job whose end let `job` start after it was ready: of the jobs that ended after
    /// `ready` and no later than `start`, the one that ended last (of `job`'s lane first, at a
    /// tie). Jobs that took no time hold no slot.
    /// - Complexity: O(log n) to find the last end, then the jobs that ended at that moment.
    private func freedSlot(
        for job: Int, start: Int64, after ready: Int64, in ran: [(end: Int64, start: Int64, job: Int)], skipping: [Bool]
    ) -> Int? {
        var low = 0, high = ran.count
        while low < high {
            let middle = (low + high) / 2
            if ran[middle].end <= start { low = middle + 1 } else { high = middle }
        }
        var best: Int?
        var bestEnd: Int64 = .min
        var position = low - 1
        while position >= 0, ran[position].end > ready {
            let candidate = ran[position].job
            position -= 1
            if let found = best {
                guard ran[position + 1].end == bestEnd else { break }
                if lane(found) != lane(job), lane(job) != nil, lane(candidate) == lane(job),
                   candidate != job, !skipping[candidate], !tookNoTime(candidate) {
                    best = candidate
                }
                continue
            }
            guard candidate != job, !skipping[candidate], !tookNoTime(candidate) else { continue }
            best = candidate
            bestEnd = ran[position + 1].end
        }
        return best
    }
}
