import Foundation

/// A run as JSON for the page's script: times in milliseconds from the run's start, jobs by
/// index. ``Update`` is what changed since an earlier document, sent while the run runs.
struct RunDocument: Encodable, Equatable {
    var id: Int64
    var workflow: String
    var state: String
    /// Milliseconds since 1970.
    var startedAt: Double
    /// From the start; nil while it runs.
    var duration: Double?
    /// The newest time the journal has heard of, from the start: where a live timeline ends.
    var now: Double
    var lanes: [Lane]
    var jobs: [Job]
    var attempts: [Attempt]
    var critical: [Int]

    struct Lane: Encodable, Equatable {
        var name: String
        var width: Int
    }

    struct Job: Encodable, Equatable {
        var name: String
        var status: String
        var lane: Int?
        var needs: [Int]
        var start: Double?
        var end: Double?
        var attempts: Int
        var error: String?
        /// The cache key its outputs were restored from (the shared output cache); absent when it ran.
        var restoredFrom: String?
    }

    struct Attempt: Encodable, Equatable {
        var job: Int
        var attempt: Int
        var start: Double
        var end: Double
        var exit: String
    }

    init(
        id: Int64, workflow: String, state: String, startedAt: Double, duration: Double?, now: Double, lanes: [Lane], jobs: [Job],
        attempts: [Attempt], critical: [Int]
    ) {
        (self.id, self.workflow, self.state, self.startedAt, self.duration, self.now) = (id, workflow, state, startedAt, duration, now)
        (self.lanes, self.jobs, self.attempts, self.critical) = (lanes, jobs, attempts, critical)
    }

    init(_ view: RunView) {
        id = view.run.id
        workflow = view.run.workflow
        state = view.state
        startedAt = Double(view.run.startedAt) / 1e6
        duration = view.run.endedAt.flatMap(view.offset)
        lanes = view.lanes.map { Lane(name: $0.name, width: $0.width) }
        jobs = view.jobs.map { job in
            Job(
                name: job.name, status: job.status, lane: job.lane, needs: job.needs, start: view.offset(job.record?.startedAt),
                end: view.offset(job.record?.endedAt), attempts: job.record?.attempts ?? 0, error: job.record?.error,
                restoredFrom: job.restoredFrom)
        }
        attempts = view.jobs.enumerated().flatMap { position, job in
            job.attempts.map { attempt in
                Attempt(
                    job: position, attempt: attempt.attempt, start: view.offset(attempt.startedAt) ?? 0,
                    end: view.offset(attempt.endedAt) ?? 0, exit: attempt.exit)
            }
        }
        critical = view.critical
        let times = jobs.flatMap { [$0.start, $0.end].compactMap { $0 } } + attempts.map(\.end)
        now = max(times.max() ?? 0, duration ?? 0)
    }

    /// What changed from `earlier` to this document.
    struct Update: Encodable {
        var state: String
        var duration: Double?
        var now: Double
        /// Changed or new jobs, by index (as text: JSON's keys are strings).
        var jobs: [String: Job]
        var attempts: [Attempt]
        var critical: [Int]
    }

    func update(since earlier: RunDocument) -> Update? {
        guard self != earlier else { return nil }
        var changed: [String: Job] = [:]
        for (position, job) in jobs.enumerated() where position >= earlier.jobs.count || earlier.jobs[position] != job {
            changed[String(position)] = job
        }
        let known = Set(earlier.attempts.map { [$0.job, $0.attempt] })
        return Update(
            state: state, duration: duration, now: now, jobs: changed,
            attempts: attempts.filter { !known.contains([$0.job, $0.attempt]) }, critical: critical)
    }

    /// JSON text, safe inside a `<script>` element (`<` is escaped).
    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }
}
