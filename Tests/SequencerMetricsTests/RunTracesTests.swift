import Foundation
import InMemoryTracing
import Sequencer
import SequencerTracing
import Testing
import Tracing

/// A run as spans: one root, a span per job that started (a child's under its parent's), at the
/// run's own times, failures marked, jobs that never started counted and not drawn.
@Suite struct RunTracesTests {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "broken on purpose" }
    }

    @Test func aRunIsOneRootSpanWithASpanPerJobThatStarted() async throws {
        var workflow = Workflow()
        try workflow.add("fetch") { ctx in
            try ctx.addChild("part-1") { _ in 1 }
            try ctx.addChild("part-2") { _ in 2 }
            return try await ctx.waitForChildren().count
        }
        try workflow.add("parse", needs: ["fetch"]) { _ in throw Broken() }
        try workflow.add("render", needs: ["parse"]) { _ in 3 }
        try workflow.add("log") { _ in 4 }
        let report = await (try workflow.start(RunOptions(keepGoing: true))).report()
        #expect(report.status == .failed)

        let tracer = InMemoryTracer()
        let ended = Date(timeIntervalSince1970: 1_800_000_000)
        RunTraces.record(report, name: "startup", endedAt: ended, context: .topLevel, tracer: tracer)
        let spans = tracer.finishedSpans
        let root = try #require(spans.first { $0.operationName == "run startup" })
        #expect(root.parentSpanID == nil)
        #expect(root.endInstant.nanosecondsSinceEpoch == 1_800_000_000 * 1_000_000_000)
        #expect(root.endInstant.nanosecondsSinceEpoch - root.startInstant.nanosecondsSinceEpoch == UInt64(report.duration.components.seconds * 1_000_000_000 + report.duration.components.attoseconds / 1_000_000_000))
        #expect(root.attributes[SpanAttributes.runStatus]?.toSpanAttribute() == .string("failed"))
        #expect(root.attributes[SpanAttributes.notStarted]?.toSpanAttribute() == .int64(1), "render never started")
        #expect(root.status?.code == .error)

        let jobs = Dictionary(uniqueKeysWithValues: spans.filter { $0.operationName.hasPrefix("job ") }.map { ($0.operationName, $0) })
        #expect(Set(jobs.keys) == ["job fetch", "job fetch/part-1", "job fetch/part-2", "job parse", "job log"])
        for name in ["job fetch", "job parse", "job log"] {
            #expect(jobs[name]?.parentSpanID == root.spanID, "\(name) is the root's")
        }
        for name in ["job fetch/part-1", "job fetch/part-2"] {
            #expect(jobs[name]?.parentSpanID == jobs["job fetch"]?.spanID, "\(name) is its parent's")
        }
        #expect(Set(spans.map(\.traceID)).count == 1, "one trace")
        for span in jobs.values {
            #expect(span.startInstant.nanosecondsSinceEpoch >= root.startInstant.nanosecondsSinceEpoch)
            #expect(span.endInstant.nanosecondsSinceEpoch <= root.endInstant.nanosecondsSinceEpoch)
            #expect(span.startInstant.nanosecondsSinceEpoch <= span.endInstant.nanosecondsSinceEpoch)
        }
        let parse = try #require(jobs["job parse"])
        #expect(parse.status?.code == .error)
        #expect(parse.errors.count == 1)
        #expect(parse.attributes[SpanAttributes.jobStatus]?.toSpanAttribute() == .string("failed"))
        #expect(try #require(jobs["job fetch"]).startInstant.nanosecondsSinceEpoch <= parse.startInstant.nanosecondsSinceEpoch)
        #expect(jobs["job log"]?.status == nil)
        let critical = Set(report.criticalPath.map { "job \($0)" })
        #expect(!critical.isEmpty)
        for (name, span) in jobs {
            let marked = span.attributes[SpanAttributes.critical]?.toSpanAttribute() == .bool(true)
            #expect(marked == critical.contains(name), "\(name) on the critical path \(critical)")
        }
    }

    /// In a context with a span (an HTTP request's, say), the run's root is its child.
    @Test func theRootContinuesTheCurrentTrace() async throws {
        var workflow = Workflow()
        try workflow.add("only") { _ in 1 }
        let report = await (try workflow.start(RunOptions())).report()
        let tracer = InMemoryTracer()
        let request = tracer.startSpan("GET /start", context: .topLevel)
        RunTraces.record(report, name: "w", context: request.context, tracer: tracer)
        request.end()
        let root = try #require(tracer.finishedSpans.first { $0.operationName == "run w" })
        #expect(root.parentSpanID == request.spanContext.spanID)
        #expect(tracer.finishedSpans.first { $0.operationName == "job only" }?.parentSpanID == root.spanID)
    }
}
