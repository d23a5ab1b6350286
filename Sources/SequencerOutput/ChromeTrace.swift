public import Sequencer

/// A run as a Chrome trace (the JSON that Perfetto and chrome://tracing load): a slice per
/// attempt of each job, on a track per slot of its lane, and a "critical path" track on top.
///
/// For a run in this process, make it from the run's report:
///
/// ```swift
/// let report = await run.report()
/// let trace = ChromeTrace(report: report)
/// try trace.json().write(toFile: "run.trace.json", atomically: true, encoding: .utf8)
/// ```
///
/// (`SequencerWorkflowFile` adds initializers for a workflow file's run, with a slice per
/// attempt and each job's command.)
///
/// Tracks, from the top: "critical path", with one slice per job of the critical path
/// spanning all its attempts; "jobs 1", "jobs 2", ... for jobs in no lane; then each lane,
/// "network 1", "network 2", ... Each slice goes on the first track of its lane that is free
/// when it starts, so a lane of width 2 fills at most two tracks. Slices of critical jobs are
/// coloured and have `critical: true` in their args. Jobs that never started have no slices.
/// Times are whole microseconds from the run's start.
public struct ChromeTrace: Sendable {
    /// The events, in the order they are written: metadata, the critical path, then every
    /// attempt by start.
    let events: [TraceEvent]

    /// Lays out a run in this process from its report: one slice per job that started, from
    /// its first attempt's start to its last attempt's end, with its status and its number of
    /// attempts (a report keeps no times per attempt). Jobs are in the order they were added;
    /// lanes in the order their first job was added.
    ///
    /// - Parameters:
    ///   - report: The run's report.
    ///   - title: The trace's process name, shown above its tracks.
    /// - Complexity: O(jobs × log jobs), plus the critical path's.
    public init(report: RunReport, title: String = "sequencer run") {
        var jobs: [Job] = []
        var lanes: [String] = []
        var knownLanes: Set<String> = []
        var attempts: [Attempt] = []
        var statuses: [String: String] = [:]
        for (position, outcome) in report.outcomes.enumerated() {
            let name = outcome.id.rawValue
            let lane = report.lane(ofJobAt: position)
            if let lane, knownLanes.insert(lane).inserted { lanes.append(lane) }
            jobs.append(Job(name: name, command: nil, lane: lane))
            statuses[name] = outcome.status.rawValue
            if let start = outcome.startedAt, let end = outcome.endedAt {
                attempts.append(Attempt(job: name, attempts: outcome.attempts, startedAt: start, endedAt: end))
            }
        }
        self.init(Input(
            title: title, jobs: jobs, lanes: lanes, attempts: attempts, statuses: statuses,
            criticalPath: report.criticalPathSteps))
    }

    /// Lays out a run from its parts; the workflow-file initializers build on it.
    package init(_ input: Input) {
        events = TraceLayout(input).events()
    }

    /// The trace as JSON: `{"displayTimeUnit": "ms", "traceEvents": [...]}`, on one line, with
    /// sorted keys.
    ///
    /// ```swift
    /// FileManager.default.createFile(atPath: "run.trace.json", contents: Data(trace.json().utf8))
    /// ```
    ///
    /// - Returns: the document, ending with a newline.
    public func json() -> String {
        JSONText.encode(Document(traceEvents: events), pretty: false) + "\n"
    }

    private struct Document: Encodable {
        var traceEvents: [TraceEvent]
        var displayTimeUnit = "ms"
    }
}

extension ChromeTrace {
    /// A job as the trace shows it.
    package struct Job: Sendable {
        package var name: String
        /// Shown in the job's slices' args.
        package var command: String?
        /// The job's lane, one of ``Input/lanes``; nil for none.
        package var lane: String?

        package init(name: String, command: String?, lane: String?) {
            self.name = name
            self.command = command
            self.lane = lane
        }
    }

    /// A slice of a job: one attempt, or (from a report) all of them.
    package struct Attempt: Sendable {
        package var job: String
        /// The attempt's number, counting from 1; nil for a slice of all attempts.
        package var attempt: Int?
        /// How many attempts the slice covers; nil for one.
        package var attempts: Int?
        package var startedAt: Duration
        package var endedAt: Duration
        /// How it ended, in words (`exit code 1`).
        package var exit: String?
        /// The file its output went to.
        package var output: String?

        package init(
            job: String, attempt: Int? = nil, attempts: Int? = nil, startedAt: Duration, endedAt: Duration,
            exit: String? = nil, output: String? = nil
        ) {
            self.job = job
            self.attempt = attempt
            self.attempts = attempts
            self.startedAt = startedAt
            self.endedAt = endedAt
            self.exit = exit
            self.output = output
        }
    }

    /// Everything a trace is made from.
    package struct Input: Sendable {
        /// The process name, shown above the tracks.
        package var title: String
        /// The jobs, in the order their lanes' tracks and ties between slices follow.
        package var jobs: [Job]
        /// The lanes, in the order of their tracks.
        package var lanes: [String]
        /// The slices, in any order.
        package var attempts: [Attempt]
        /// How each job ended, by name.
        package var statuses: [String: String]
        package var criticalPath: [CriticalPath.Step]
        /// When each job ran, in microseconds, for jobs of the critical path without attempts.
        package var spans: [String: (start: Int64, end: Int64)]

        package init(
            title: String, jobs: [Job], lanes: [String], attempts: [Attempt], statuses: [String: String],
            criticalPath: [CriticalPath.Step], spans: [String: (start: Int64, end: Int64)] = [:]
        ) {
            self.title = title
            self.jobs = jobs
            self.lanes = lanes
            self.attempts = attempts
            self.statuses = statuses
            self.criticalPath = criticalPath
            self.spans = spans
        }
    }
}
