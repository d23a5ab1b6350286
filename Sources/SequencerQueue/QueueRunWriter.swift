import Foundation
public import SequencerHistory

/// A queue's ``RunWriter``: what a worker's runner writes goes to the queue's store, in the order
/// written, on a task of its own. Attempts name their job by its queue ID
/// (``NewAttempt/queueJob``); one without it is not kept. A queue keeps no checks, and a store
/// that fails to keep a record loses it (the job goes on: see ``RunWriter``).
public final class QueueRunWriter: RunWriter {
    private enum Record: Sendable {
        case attempt(QueueAttempt)
        case fingerprint(Fingerprint, job: String, now: Int64)
        case flushed(CheckedContinuation<Void, Never>)
    }

    private let records: AsyncStream<Record>.Continuation
    private let worker: String

    /// A writer of the runs of `workflow` into `store`, its attempts recorded as run by `worker`.
    public init(store: any RunStore, workflow: String, worker: String) {
        let (stream, records) = AsyncStream.makeStream(of: Record.self)
        self.records = records
        self.worker = worker
        // Holds the stream and the store, not the writer: ending the writer ends the task, once
        // it has written what was buffered.
        Task {
            for await record in stream {
                switch record {
                case .attempt(let attempt): _ = try? await store.recordAttempt(attempt)
                case .fingerprint(let fingerprint, let job, let now):
                    _ = try? await store.recordFingerprint(fingerprint, workflow: workflow, job: job, now: now)
                case .flushed(let waiter): waiter.resume()
                }
            }
        }
    }

    deinit { records.finish() }

    public func recordAttempt(_ attempt: NewAttempt) {
        guard let job = attempt.queueJob else { return }
        var output: Data?
        switch attempt.output {
        case .bytes(let bytes): output = bytes
        case .file(let path): output = FileManager.default.contents(atPath: path)
        case .none: break
        }
        records.yield(.attempt(QueueAttempt(
            job: DurableJobID(job), attempt: attempt.attempt, worker: worker, startedAt: Self.milliseconds(attempt.startedAt),
            endedAt: Self.milliseconds(attempt.endedAt), outcome: attempt.end.rawValue, exitCode: attempt.exitCode,
            signal: attempt.signal, summary: attempt.exit, output: output)))
    }

    public func recordFingerprint(job: String, fingerprint: String, parts: [String: String], outputs: [String: String]) {
        let now = Self.milliseconds(NewAttempt.now())
        records.yield(.fingerprint(Fingerprint(fingerprint: fingerprint, parts: parts, outputs: outputs), job: job, now: now))
    }

    public func flush() async {
        await withCheckedContinuation { waiter in
            // After the writer's end (never, while a caller holds it) nothing would resume it.
            if case .terminated = records.yield(.flushed(waiter)) { waiter.resume() }
        }
    }

    /// A queue keeps times in milliseconds since 1970.
    private static func milliseconds(_ nanoseconds: Int64) -> Int64 { (nanoseconds + 500_000) / 1_000_000 }
}
