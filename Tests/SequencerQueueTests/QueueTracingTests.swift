import Foundation
import InMemoryTracing
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import SequencerTracing
import Testing
import Tracing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// A job's trace across processes: its enqueueing is a producer span whose context is kept with
/// the job; each attempt, wherever it runs, is a consumer span in that context, linked to it.
/// Two queues on one file stand for the submitting process and the worker's, each with a tracer
/// of its own: only the kept context joins them.
@Suite(.suiteTimeLimit)
struct QueueTracingTests {
    @Test func anAttemptContinuesTheTraceOfItsEnqueueingInAnotherProcess() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("q.sqlite")
        let submitterTracer = InMemoryTracer()
        let workerTracer = InMemoryTracer()
        let submitter = try await DurableQueue(store: .sqlite(path: path), options: .init(tracer: submitterTracer))
        let worker = try await DurableQueue(store: .sqlite(path: path), options: .init(tracer: workerTracer))
        try await worker.lane("net", width: 2)
        let innerTraceID = Locked<String?>(nil)
        worker.register("upload") { (input: Int, _: JobContext) -> Int in
            // A span the body starts is a child of the attempt's.
            workerTracer.withSpan("inner") { span in innerTraceID.withLock { $0 = span.traceID } }
            if input < 0 { throw CancellationError() }
            return input
        }
        let request = submitterTracer.startSpan("POST /uploads", ofKind: .server)
        let id = try await InstrumentationContext.$current.withValue(request.context) {
            try await submitter.enqueue("upload", 7, lane: "net")
        }
        request.end()
        try await DurableQueueTests.working(worker) { () async throws in
            #expect(try await worker.result(of: id, as: Int.self) == 7)
        }
        let produced = try #require(submitterTracer.finishedSpans.first { $0.operationName == "enqueue upload" })
        #expect(produced.kind == .producer && produced.parentSpanID == request.spanID, "in the request's trace")
        let attempt = try #require(workerTracer.finishedSpans.first { $0.operationName == "job upload" })
        #expect(attempt.kind == .consumer)
        #expect(attempt.traceID == produced.traceID && attempt.parentSpanID == produced.spanID, "the producer's trace, from another tracer")
        #expect(attempt.links.count == 1)
        #expect(attempt.attributes[SpanAttributes.jobID]?.toSpanAttribute() == .int64(id.rawValue))
        #expect(attempt.attributes[SpanAttributes.attempt]?.toSpanAttribute() == .int64(1))
        #expect(attempt.attributes[SpanAttributes.kind]?.toSpanAttribute() == .string("upload"))
        #expect(attempt.attributes[SpanAttributes.lane]?.toSpanAttribute() == .string("net"))
        #expect(attempt.status == nil && attempt.errors.isEmpty)
        #expect(innerTraceID.withLock { $0 } == produced.traceID)
        let inner = try #require(workerTracer.finishedSpans.first { $0.operationName == "inner" })
        #expect(inner.parentSpanID == attempt.spanID)
    }

    @Test func aFailedAttemptsSpanSaysSoAndABatchIsOneProducerSpan() async throws {
        let directory = try TemporaryDirectory()
        let tracer = InMemoryTracer()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")), options: .init(tracer: tracer))
        queue.register("fail") { (_: Int, _: JobContext) -> Int in
            struct Broken: Error {}
            throw Broken()
        }
        var batch = DurableQueue.Batch()
        let first = try batch.add("fail", 1)
        try batch.add("other", 2, needs: [first])
        let ids = try await queue.enqueue(batch)
        try await DurableQueueTests.working(queue) { () async throws in
            await #expect(throws: DurableJobError.self) { try await queue.result(of: ids[0], as: Int.self) }
        }
        let produced = tracer.finishedSpans.filter { $0.kind == .producer }
        #expect(produced.map(\.operationName) == ["enqueue"], "one span for the batch of two kinds")
        #expect(produced.first?.attributes[SpanAttributes.count]?.toSpanAttribute() == .int64(2))
        let attempt = try #require(tracer.finishedSpans.first { $0.operationName == "job fail" })
        #expect(attempt.status?.code == .error && attempt.errors.count == 1)
        #expect(attempt.traceID == produced.first?.traceID)
    }

    @Test func withoutATracerNoContextIsKept() async throws {
        let directory = try TemporaryDirectory()
        let queue = try await DurableQueue(store: .sqlite(path: directory.file("q.sqlite")), options: .init(tracer: NoOpTracer()))
        #expect(queue.tracer.tracer == nil)
        let id = try await queue.enqueue("k", 1)
        let claimed = try await queue.store.claim(kinds: ["k"], limit: 1, owner: "w", now: queue.clock.now(), leaseUntil: queue.clock.now() + 1_000)
        #expect(claimed.map(\.id) == [id] && claimed.first?.traceContext == nil)
    }

    @Test func aKeptContextIsTheInjectedValuesAsLines() {
        let kept = TraceCarrier.encode(["traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tracestate": "a=1,b=2"])
        #expect(kept == "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\ntracestate=a=1,b=2")
        #expect(TraceCarrier.decode(kept ?? "") == ["traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tracestate": "a=1,b=2"])
        #expect(TraceCarrier.encode([:]) == nil)
        #expect(TraceCarrier.decode("garbage\nx=y") == ["x": "y"], "a line without '=' is left out")
    }
}
