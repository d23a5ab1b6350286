public import Sequencer

/// A run as a Chrome trace (the JSON that Perfetto and chrome://tracing load): a slice per
/// attempt of each job, on a track per slot of its lane, and a "critical path" track on top.
///
/// ```swift
/// let report = await run.report()
/// let trace = ChromeTrace(file: file, report: report, attempts: log.all)
/// try trace.json().write(toFile: "run.trace.json", atomically: true, encoding: .utf8)
/// ```
///
/// Tracks, from the top: "critical path", with one slice per job of the report's critical
/// path spanning all its attempts; "jobs 1", "jobs 2", ... for jobs in no lane; then each lane
/// in file order, "network 1", "network 2", ... Each attempt goes on the first track of its
/// lane that is free when it starts, so a lane of width 2 fills at most two tracks. Slices of
/// critical jobs are coloured and have `critical: true` in their args. Jobs that never started
/// have no attempts, and no slices. Times are whole microseconds from the run's start.
public struct ChromeTrace: Sendable {
    /// The events, in the order they are written: metadata, the critical path, then every
    /// attempt by start.
    let events: [TraceEvent]

    /// Lays out a run's attempts.
    ///
    /// - Parameters:
    ///   - file: the workflow file that ran: the jobs' lanes and commands, and the trace's name.
    ///   - report: the run's report: each job's status, and the critical path.
    ///   - attempts: every attempt of the run, in any order (``AttemptLog/all``).
    public init(file: WorkflowFile, report: RunReport, attempts: [AttemptRecord]) {
        let layout = TraceLayout(file: file, report: report, attempts: attempts)
        events = layout.events()
    }

    /// Lays out a past run's attempts (from a journal), without its report.
    ///
    /// - Parameters:
    ///   - statuses: how each job ended, by name.
    ///   - criticalPath: the critical path (``CriticalPath/steps(of:)`` over the run's jobs).
    public init(file: WorkflowFile, attempts: [AttemptRecord], statuses: [String: String], criticalPath: [CriticalPath.Step]) {
        let layout = TraceLayout(file: file, attempts: attempts, statuses: statuses, criticalPath: criticalPath, spans: [:])
        events = layout.events()
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
