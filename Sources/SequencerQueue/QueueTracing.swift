import SequencerTracing
import Tracing

/// A queue's traces, through swift-distributed-tracing: to the tracer the application
/// bootstrapped (`InstrumentationSystem.bootstrap`), or to ``DurableQueue/Options/tracer``.
///
/// - Enqueueing is a producer span, `enqueue KIND`, in the submitter's context; what the tracer
///   injects of it (W3C `traceparent` and `tracestate` with OpenTelemetry) is kept with each job.
/// - Each attempt is a consumer span, `job KIND`, in that context and linked to it, wherever it
///   runs, with the job's ID, attempt, kind and lane (named in `SpanAttributes`); spans its body
///   starts are its children.
///
/// The tracer a queue reports to is nil when none records (swift-distributed-tracing's no-op one):
/// then no span is made, nothing is injected, and an attempt costs nothing more.
struct QueueTracer: Sendable {
    let tracer: (any Tracer)?

    init(_ tracer: (any Tracer)?) {
        let chosen = tracer ?? InstrumentationSystem.tracer
        self.tracer = chosen is NoOpTracer ? nil : chosen
    }

    /// Runs `enqueue` in a producer span; returns its result and the context to keep with the
    /// jobs (nil when nothing traces).
    func enqueueing<T>(_ kinds: [String], _ enqueue: (String?) async throws -> T) async throws -> T {
        guard let tracer else { return try await enqueue(nil) }
        let distinct = Set(kinds)
        let name = distinct.count == 1 ? "enqueue \(kinds[0])" : "enqueue"
        let span = tracer.startAnySpan(name, context: .current ?? .topLevel, ofKind: .producer)
        span.attributes[SpanAttributes.count] = kinds.count
        if distinct.count == 1 { span.attributes[SpanAttributes.kind] = kinds[0] }
        var carrier: [String: String] = [:]
        tracer.inject(span.context, into: &carrier, using: DictionaryInjector())
        defer { span.end() }
        do {
            return try await enqueue(TraceCarrier.encode(carrier))
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// Runs an attempt's body in a consumer span, in the context kept with its job.
    func attempt<T: Sendable>(_ job: ClaimedJob, _ body: () async throws -> T) async throws -> T {
        guard let tracer else { return try await body() }
        var produced = InstrumentationContext.topLevel
        if let kept = job.traceContext {
            tracer.extract(TraceCarrier.decode(kept), into: &produced, using: DictionaryExtractor())
        }
        let span = tracer.startAnySpan("job \(job.kind)", context: produced, ofKind: .consumer)
        if job.traceContext != nil { span.addLink(SpanLink(context: produced, attributes: [:])) }
        span.attributes[SpanAttributes.jobID] = job.id.rawValue
        span.attributes[SpanAttributes.attempt] = job.attempt
        span.attributes[SpanAttributes.kind] = job.kind
        if let lane = job.lane { span.attributes[SpanAttributes.lane] = lane }
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context) { try await body() }
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}

/// What a tracer injects, kept with a job: `name=value` lines, sorted by name.
enum TraceCarrier {
    static func encode(_ values: [String: String]) -> String? {
        let lines = values.filter { !$0.key.contains("=") && !$0.key.contains("\n") && !$0.value.contains("\n") }
            .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    static func decode(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }
}

struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
}

struct DictionaryExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}
