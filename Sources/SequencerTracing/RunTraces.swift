public import Foundation
public import Sequencer
public import Tracing

/// A run of a graph as spans, through
/// [swift-distributed-tracing](https://github.com/apple/swift-distributed-tracing): one root
/// span, `run NAME`, from the run's start to its end, and a span for each job that started,
/// `job ID`, at the times the run measured: a child job's span under its parent's, every other
/// job's under the root. So an OpenTelemetry backend shows the tree that the run's Perfetto
/// trace (`sequencer run --trace`) shows.
///
/// ```swift
/// let report = await run.report()
/// RunTraces.record(report, name: "startup")   // to the tracer bootstrapped, in the current context
/// ```
///
/// Each job's span carries `sequencer.job.id`, `sequencer.job.status`, `sequencer.job.attempts`
/// and, when true, `sequencer.job.restored` and `sequencer.job.critical` (it is on the critical
/// path); a job that failed or timed out records its error and sets the span's status. The
/// root carries `sequencer.run.status`, `sequencer.run.jobs` and `sequencer.run.critical_path_ms`.
/// Jobs that never started (skipped, cancelled before they started) have no span; the root
/// counts them in `sequencer.run.not_started`.
public enum RunTraces {
    /// Reports `report` as spans.
    /// - Parameters:
    ///   - name: The run's name in the root span's: a workflow's name (a handful per app).
    ///   - endedAt: When the run ended (by default, now: record it as soon as it ends).
    ///   - context: The root's parent context (by default the current one: an HTTP request's
    ///     span, say; none makes the root a trace of its own).
    ///   - tracer: Where the spans go (nil: the tracer bootstrapped with `InstrumentationSystem`).
    public static func record(
        _ report: RunReport, name: String, endedAt: Date = Date(), context: ServiceContext = .current ?? .topLevel,
        tracer: (any Tracer)? = nil
    ) {
        let tracer = tracer ?? InstrumentationSystem.tracer
        let end = nanoseconds(endedAt)
        let start = end - report.duration.nanoseconds
        let outcomes = Array(report.outcomes)
        let critical = Set(report.criticalPath)
        let root = Self.begin(tracer, "run \(name)", at: start, context: context)
        root.attributes[SpanAttributes.runStatus] = report.status.rawValue
        root.attributes[SpanAttributes.runJobs] = outcomes.count
        root.attributes[SpanAttributes.notStarted] = outcomes.filter { $0.startedAt == nil }.count
        root.attributes[SpanAttributes.criticalPath] = Int((report.criticalPathSteps.last?.endedAt ?? .zero).nanoseconds / 1_000_000)
        if report.status != .succeeded { root.setStatus(SpanStatus(code: .error, message: "the run \(report.status.rawValue)")) }

        var contexts: [JobID: ServiceContext] = [:]
        var spans: [(any Span, Int64)] = []
        // Parents first: a child job starts after its parent did.
        for job in outcomes.filter({ $0.startedAt != nil }).sorted(by: { ($0.startedAt ?? .zero) < ($1.startedAt ?? .zero) }) {
            guard let started = job.startedAt else { continue }
            let parent = job.parent.flatMap { contexts[$0] } ?? root.context
            let span = Self.begin(tracer, "job \(job.id)", at: start + started.nanoseconds, context: parent)
            span.attributes[SpanAttributes.jobID] = job.id.rawValue
            span.attributes[SpanAttributes.jobStatus] = job.status.rawValue
            span.attributes[SpanAttributes.attempts] = job.attempts
            if job.restored { span.attributes[SpanAttributes.restored] = true }
            if critical.contains(job.id) { span.attributes[SpanAttributes.critical] = true }
            if job.status == .failed || job.status == .timedOut {
                if let error = job.error { span.recordError(error) }
                span.setStatus(SpanStatus(code: .error, message: job.error.map { "\($0)" } ?? job.status.rawValue))
            }
            contexts[job.id] = span.context
            spans.append((span, start + (job.endedAt ?? report.duration).nanoseconds))
        }
        for (span, ended) in spans { span.end(at: instant(ended)) }
        root.end(at: instant(end))
    }

    /// A span of `tracer`'s, begun at `nanoseconds` since 1970.
    static func begin<T: Tracer>(_ tracer: T, _ name: String, at nanoseconds: Int64, context: ServiceContext) -> any Span {
        tracer.startSpan(name, context: context, ofKind: .internal, at: instant(nanoseconds))
    }

    static func nanoseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1e9).rounded()) }

    static func instant(_ nanoseconds: Int64) -> DefaultTracerClock.Timestamp {
        DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: UInt64(max(0, nanoseconds)))
    }
}
