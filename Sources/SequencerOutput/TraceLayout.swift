import Sequencer

/// Works out a ``ChromeTrace``: which track each attempt goes on, and the events.
struct TraceLayout {
    /// An attempt with its times in microseconds and where its job is in the list of jobs.
    private struct Slice {
        var attempt: ChromeTrace.Attempt
        var start: Int64
        var end: Int64
        /// The job's position in the list; nil for a job the list does not have.
        var position: Int?
        /// The job's lane's position in the list of lanes; nil for no (declared) lane.
        var lane: Int?
    }

    private let title: String
    private let jobs: [ChromeTrace.Job]
    private let lanes: [String]
    /// When each job of the critical path ran, in microseconds, for jobs without attempts.
    private let spans: [String: (start: Int64, end: Int64)]
    private let slices: [Slice]
    private let critical: [CriticalPath.Step]
    /// Each job's position in the list, by name.
    private let positions: [String: Int]
    /// Each job's status by name.
    private let statuses: [String: String]

    init(_ input: ChromeTrace.Input) {
        title = input.title
        jobs = input.jobs
        lanes = input.lanes
        spans = input.spans
        statuses = input.statuses
        critical = input.criticalPath
        var positions: [String: Int] = [:]
        for (position, job) in jobs.enumerated() where positions[job.name] == nil {
            positions[job.name] = position
        }
        self.positions = positions
        slices = input.attempts.map { [jobs, lanes] attempt in
            let position = positions[attempt.job]
            let start = attempt.startedAt.wholeMicroseconds
            return Slice(
                attempt: attempt, start: start, end: max(start, attempt.endedAt.wholeMicroseconds),
                position: position,
                lane: position.flatMap { jobs[$0].lane }.flatMap { lanes.firstIndex(of: $0) })
        }.sorted { a, b in
            (a.start, a.end, a.position ?? Int.max, a.attempt.job, a.attempt.attempt ?? 0)
                < (b.start, b.end, b.position ?? Int.max, b.attempt.job, b.attempt.attempt ?? 0)
        }
    }

    func events() -> [TraceEvent] {
        // Pack each lane's attempts (and the unlaned ones, under nil) onto its own tracks.
        var packings: [Int?: TrackPacking] = [:]
        let tracks = slices.map { slice in
            packings[slice.lane, default: TrackPacking()].place(start: slice.start, end: slice.end)
        }
        let criticalSlices = criticalPathSlices()

        // Number the tracks from the top: the critical path, the unlaned jobs, each lane.
        var names: [String] = []
        if !criticalSlices.isEmpty { names.append("critical path") }
        let unlaned = lanes.contains("jobs") ? "unlaned jobs" : "jobs"
        var firstTid: [Int?: Int] = [:]
        for lane in [nil] + lanes.indices.map(Optional.some) {
            guard let count = packings[lane]?.ends.count else { continue }
            firstTid[lane] = names.count + 1
            let prefix = lane.map { lanes[$0] } ?? unlaned
            names += (1...count).map { "\(prefix) \($0)" }
        }

        var events = [TraceEvent.metadata("process_name", tid: 0, args: .init(name: title))]
        for (index, name) in names.enumerated() {
            events.append(.metadata("thread_name", tid: index + 1, args: .init(name: name)))
            events.append(.metadata("thread_sort_index", tid: index + 1, args: .init(sortIndex: index)))
        }
        events += criticalSlices
        let criticalJobs = Set(critical.map(\.job.rawValue))
        for (slice, track) in zip(slices, tracks) {
            let attempt = slice.attempt
            let isCritical = criticalJobs.contains(attempt.job)
            var event = TraceEvent.slice(
                attempt.job, tid: (firstTid[slice.lane] ?? 1) + track, start: slice.start, end: slice.end,
                category: "job",
                args: .init(
                    job: attempt.job, attempt: attempt.attempt, attempts: attempt.attempts, exit: attempt.exit,
                    command: slice.position.flatMap { jobs[$0].command }, status: statuses[attempt.job],
                    critical: isCritical, output: attempt.output))
            if isCritical { event.cname = "terrible" }
            events.append(event)
        }
        return events
    }

    /// `5.1s for a worker held by 'compile'`, or `0.3s for lane 'network' held by 'fetch'`, for
    /// a job that was ready but waited for a slot; nil for one that started when its needs ended.
    private static func wait(of step: CriticalPath.Step) -> String? {
        guard case .slot(let holder, let lane) = step.wait else { return nil }
        let (seconds, attoseconds) = step.queued.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        let what = lane.map { "lane '\($0)'" } ?? "a worker"
        return "\(Double(milliseconds) / 1000)s for \(what) held by '\(holder)'"
    }

    /// One slice per job of the critical path, from its first attempt's start to its last
    /// attempt's end (the report's times for a job without attempts), on track 1.
    private func criticalPathSlices() -> [TraceEvent] {
        var events: [TraceEvent] = []
        var previousEnd = Int64.min
        let onPath = Set(critical.map(\.job.rawValue))
        let byJob = Dictionary(grouping: slices.filter { onPath.contains($0.attempt.job) }, by: \.attempt.job)
        for step in critical {
            let name = step.job.rawValue
            let attempts = byJob[name] ?? []
            var span: (start: Int64, end: Int64)
            if let first = attempts.map(\.start).min(), let last = attempts.map(\.end).max() {
                span = (first, last)
            } else if let known = spans[name] {
                span = known
            } else {
                continue
            }
            // The path's jobs follow one another; keep the track free of overlaps regardless.
            span.start = max(span.start, previousEnd)
            span.end = max(span.start, span.end)
            previousEnd = span.end
            let position = positions[name]
            var event = TraceEvent.slice(
                name, tid: 1, start: span.start, end: span.end, category: "critical",
                args: .init(
                    job: name, attempts: attempts.map { $0.attempt.attempts ?? 1 }.reduce(0, +),
                    command: position.flatMap { jobs[$0].command },
                    status: statuses[name], critical: true, waited: Self.wait(of: step)))
            event.cname = "terrible"
            events.append(event)
        }
        return events
    }
}
