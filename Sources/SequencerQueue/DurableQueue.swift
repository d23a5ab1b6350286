public import CoreMetrics
public import Foundation
public import Sequencer
import ServiceLifecycle
public import Tracing

/// A queue of jobs that outlives its process: jobs are kept in a store (an SQLite file, or a
/// PostgreSQL database with `SequencerPostgres`), run by any process that registered their
/// kind, and run again after a crash.
///
/// ```swift
/// let queue = try await DurableQueue(store: .sqlite(path: "commands.sqlite"))
/// queue.register("upload") { (input: Upload, ctx: JobContext) async throws -> Receipt in ... }
/// let id = try await queue.enqueue("upload", Upload(photo: 7), key: "upload-7",
///                                  needs: [album], retry: .exponential(attempts: 10))
/// try await queue.work(maxConcurrency: 4)   // until cancelled; after a crash, unfinished jobs run again
/// let receipt = try await queue.result(of: id, as: Receipt.self)
/// ```
///
/// Jobs run at least once: a job whose process ends while it runs is run again, by another
/// process or the next launch, once its lease expires. A success is recorded once. See the
/// "Durable queues" article for the guarantees, and how to write bodies that can run twice.
public final class DurableQueue: Sendable {
    /// Where the jobs are kept.
    public let store: any QueueStore
    let options: Options
    let clock: QueueClock
    let metrics: QueueMetrics
    let tracer: QueueTracer
    /// This queue's name when it reads the gauges (``QueueStore/readGauges(reader:now:holdUntil:)``):
    /// host, process and a random part, shared by its workers.
    let gaugeReader = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(UUID().uuidString.prefix(8).lowercased())"
    let kinds = Locked<[String: Kind]>([:])
    /// Rung when this process records an end or enqueues: wakes its workers and the callers
    /// waiting in ``result(of:as:)``.
    let doorbell = Doorbell()
    /// The workers running in this process (``work(maxConcurrency:)``), by number.
    let workers = Locked<[Int: WorkLoop]>([:])
    /// The grace of ``drain(within:)`` once called: `work` started later drains at once.
    let draining = Locked<Duration?>(nil)

    /// How a queue's workers hold, renew and give up their jobs, and how long ended jobs are kept.
    public struct Options: Sendable {
        /// How long a claim holds a job without a heartbeat: after a worker's process ends, its
        /// jobs run again within about `lease` plus `heartbeat`.
        public var lease: Duration
        /// How often a worker renews its leases (one statement for all its jobs).
        public var heartbeat: Duration
        /// How often an idle worker looks for jobs that other processes enqueued, and how often
        /// ``DurableQueue/result(of:as:)`` looks for their ends.
        public var poll: Duration
        /// How long a succeeded job (and its output) is kept; the workers prune older ones.
        public var retention: Duration
        /// How long failed, cancelled and skipped jobs are kept; nil keeps them until
        /// ``DurableQueue/prune(endedBefore:includingFailures:)``.
        public var failureRetention: Duration?
        /// After how many ends of its worker's process during the job a job is failed as poison,
        /// rather than run again.
        public var poisonLimit: Int
        /// How many claimed jobs a worker keeps waiting for a free slot, beyond the
        /// `maxConcurrency` that run, at least: a turn claims up to this many at once and then
        /// records about as many ends, so that short jobs share their transactions. While its jobs
        /// are short the worker claims more, about as many as it ends in 25 ms (up to 1,024):
        /// `sequencer-bench --durable` drained 12k jobs/s with 16 ahead and no more, 29k with the
        /// window. Waiting jobs hold leases, renewed by heartbeats; if the process dies they are
        /// taken back like running ones, and count towards ``poisonLimit`` although their bodies
        /// never started: keep it small for long jobs, and `poisonLimit` above 1.
        public var claimAhead: Int
        /// The clock for leases, heartbeats, polls, retry delays and timeouts. Tests pass a
        /// manual clock.
        public var clock: any Clock<Duration>
        /// Hears each failure of the store that a worker outlives (the database went away, the
        /// file is locked too long, the disk is full: ``QueueError/Code/database``), before the
        /// worker tries again. Running bodies go on meanwhile; if the store is away longer than
        /// a lease, other workers take their jobs and these ends are refused. Other errors (a
        /// damaged or newer store) end ``DurableQueue/work(maxConcurrency:)``.
        public var storeTrouble: (@Sendable (QueueError) -> Void)?
        /// Where the queue's metrics go (``QueueMetricNames``); nil: to the factory the
        /// application bootstrapped with `MetricsSystem.bootstrap`, if any. With none, nothing
        /// is measured and no gauge is read.
        public var metrics: (any MetricsFactory)?
        /// How often a worker reads the gauges from the database, when it holds their reading
        /// (one process at a time does: see ``QueueStore/readGauges(reader:now:holdUntil:)``).
        /// It holds it for three times as long.
        public var gaugeInterval: Duration
        /// Where the queue's spans go (``SpanAttributes``); nil: to the tracer the
        /// application bootstrapped with `InstrumentationSystem.bootstrap`, if any.
        public var tracer: (any Tracer)?

        public init(
            lease: Duration = .seconds(30), heartbeat: Duration = .seconds(10), poll: Duration = .seconds(1),
            retention: Duration = .seconds(7 * 24 * 3600), failureRetention: Duration? = nil, poisonLimit: Int = 3,
            claimAhead: Int = 16, clock: any Clock<Duration> = ContinuousClock(), metrics: (any MetricsFactory)? = nil,
            gaugeInterval: Duration = .seconds(10), tracer: (any Tracer)? = nil
        ) {
            self.tracer = tracer
            self.metrics = metrics
            self.gaugeInterval = gaugeInterval
            self.lease = lease
            self.heartbeat = heartbeat
            self.poll = poll
            self.retention = retention
            self.failureRetention = failureRetention
            self.poisonLimit = poisonLimit
            self.claimAhead = claimAhead
            self.clock = clock
        }
    }

    /// A registered kind: its body, on encoded input and output.
    struct Kind: Sendable {
        let run: @Sendable (Data, JobContext) async throws -> Data
    }

    /// Opens the queue in `store`.
    public convenience init(store location: QueueStoreLocation, options: Options = Options()) async throws {
        self.init(store: try await location.open(), options: options)
    }

    /// A queue on a store you opened.
    public init(store: any QueueStore, options: Options = Options()) {
        self.store = store
        self.options = options
        clock = QueueClock(options.clock)
        metrics = QueueMetrics(factory: options.metrics)
        tracer = QueueTracer(options.tracer)
    }

    /// Registers a kind of job: this process runs the jobs of this kind. A job of a kind that
    /// no process registered waits for one that does. Registering a kind again replaces its body.
    public func register<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ kind: String, _ body: @escaping @Sendable (Input, JobContext) async throws -> Output
    ) {
        // One coder per kind, shared by its jobs: making them cost more than a small job's body.
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        let (smallInput, smallOutput) = (SmallJSON.handles(Input.self), SmallJSON.handles(Output.self))
        kinds.withLock {
            $0[kind] = Kind { data, context in
                let input: Input
                do {
                    input = try SmallJSON.decode(Input.self, from: data, small: smallInput, with: decoder)
                } catch {
                    throw UndecodableInput(kind: kind, type: "\(Input.self)", reason: "\(error)")
                }
                return try SmallJSON.encode(try await body(input, context), small: smallOutput, with: encoder)
            }
        }
    }

    /// Declares a lane, or changes its width: at most `width` of its jobs run at once, across
    /// every process working the store.
    public func lane(_ name: String, width: Int) async throws {
        try await store.setLane(name, width: width)
    }

    /// Adds a job; returns its ID, or, when `key` is the key of a job that is waiting, available
    /// or running, that job's ID (nothing new runs).
    ///
    /// - Parameters:
    ///   - kind: what runs it: the body registered under this name, in any process.
    ///   - input: encoded as JSON and kept with the job.
    ///   - key: a unique key while the job lives (coalescing).
    ///   - needs: jobs that must succeed first; when one does not, this job is skipped.
    ///   - priority: among available jobs, higher first (then oldest first).
    ///   - lane: a lane declared with ``lane(_:width:)``.
    ///   - timeout: each attempt's limit; an attempt that times out fails the job.
    ///   - retry: tries again after a failure, the next attempt's time kept in the store (its
    ///     numbers only: a `retrying(when:)` predicate is not kept).
    ///   - runAt: not before this time.
    /// - Throws: ``QueueError`` for a need the store does not have, an undeclared lane or an
    ///   empty key.
    @discardableResult
    public func enqueue<Input: Encodable & Sendable>(
        _ kind: String, _ input: Input, key: String? = nil, needs: [DurableJobID] = [], priority: Priority = .utility,
        lane: String? = nil, timeout: Duration? = nil, retry: RetryPolicy = .none, runAt: Date? = nil
    ) async throws -> DurableJobID {
        let request = try Request(
            kind, input, key: key, needs: needs, priority: priority, lane: lane, timeout: timeout, retry: retry, runAt: runAt)
        guard let id = try await enqueue([request]).first else {
            throw QueueError(code: .database, location: "\(store)", message: "the store returned no ID for a job of kind '\(kind)'")
        }
        return id
    }

    /// Waits for the job to end, and returns its output.
    /// - Throws: ``DurableJobError`` when it failed, was cancelled or skipped; ``QueueError``
    ///   when there is no such job, or its output does not decode as `Output`.
    public func result<Output: Decodable & Sendable>(of id: DurableJobID, as type: Output.Type = Output.self) async throws -> Output {
        while true {
            let rung = doorbell.version
            guard let job = try await store.job(id) else {
                throw QueueError(code: .noSuchJob, location: "\(store)", message: "there is no job \(id) (never enqueued, or pruned after it ended)")
            }
            switch job.state {
            case .succeeded:
                do {
                    return try SmallJSON.decode(Output.self, from: job.output ?? Data(), small: SmallJSON.handles(Output.self), with: JSONDecoder())
                } catch {
                    throw QueueError(code: .undecodable, location: "\(store)", message: "job \(id)'s output does not decode as \(Output.self): \(error)")
                }
            case .failed, .cancelled, .skipped:
                throw DurableJobError(job: job)
            case .waiting, .available, .running:
                try await doorbell.wait(after: rung, upTo: options.poll, clock: clock)
            }
        }
    }

    /// Cancels a job: one that has not started never will, and the jobs that need it are
    /// skipped; a running one is cancelled by its worker (at once in this process, at its next
    /// heartbeat in another). Unknown IDs and ended jobs are ignored.
    public func cancel(_ id: DurableJobID) async throws {
        if try await store.cancel(id, now: clock.now()) == .running {
            for worker in workers.withLock({ Array($0.values) }) { worker.cancel(id) }
        }
        doorbell.ring()
    }

    /// One job, with its output if it succeeded.
    public func job(_ id: DurableJobID) async throws -> DurableJob? { try await store.job(id) }

    /// Jobs in the given states, oldest first (page with `after`).
    public func jobs(_ states: [DurableJobState], after: DurableJobID? = nil, limit: Int = 100) async throws -> [DurableJob] {
        try await store.jobs(in: states, after: after, limit: limit)
    }

    /// Jobs waiting for their needs or for a worker.
    public func pending(limit: Int = 100) async throws -> [DurableJob] { try await jobs([.waiting, .available], limit: limit) }
    /// Jobs a worker is running now.
    public func running(limit: Int = 100) async throws -> [DurableJob] { try await jobs([.running], limit: limit) }
    /// Jobs that failed for good, with their last error and attempts.
    public func failed(limit: Int = 100) async throws -> [DurableJob] { try await jobs([.failed], limit: limit) }
    /// Jobs that succeeded and are still kept (see ``Options/retention``).
    public func succeeded(limit: Int = 100) async throws -> [DurableJob] { try await jobs([.succeeded], limit: limit) }

    /// How many jobs are in each state.
    public func counts() async throws -> [DurableJobState: Int] { try await store.counts() }

    /// Deletes the jobs that ended before a time; returns how many.
    @discardableResult
    public func prune(endedBefore date: Date, includingFailures: Bool = false) async throws -> Int {
        try await store.prune(endedBefore: Int64((date.timeIntervalSince1970 * 1000).rounded()), includingFailures: includingFailures)
    }

    /// Writes everything into the store's main file (SQLite: a checkpoint of its WAL), so that
    /// the file alone is a complete copy. Call it on a clean exit.
    public func close() async throws { try await store.close() }
}

/// A value in a JSON object, so that any `Codable` value, a bare number or string too, encodes
/// the same way on every platform.
struct Wrapped<Value> {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Wrapped: Encodable where Value: Encodable {}
extension Wrapped: Decodable where Value: Decodable {}

extension DurableJob {
    /// The body's result, for a job that succeeded and was read with its output; nil otherwise,
    /// or when it does not decode as `Output`.
    public func result<Output: Decodable>(as type: Output.Type = Output.self) -> Output? {
        guard state == .succeeded, let output else { return nil }
        return try? SmallJSON.decode(Output.self, from: output, small: SmallJSON.handles(Output.self), with: JSONDecoder())
    }
}

/// A stored input that no longer decodes as its kind's input type: the job fails for good.
struct UndecodableInput: Error, CustomStringConvertible {
    let kind: String
    let type: String
    let reason: String

    var description: String { "the input of this '\(kind)' job does not decode as \(type) (did the kind change its type?): \(reason)" }
}

/// Why a durable job did not succeed, as ``DurableQueue/result(of:as:)`` throws it.
public struct DurableJobError: Error, Sendable, CustomStringConvertible {
    /// The job, as the store reports it: its state, attempts and last error.
    public let job: DurableJob

    public var description: String {
        "job \(job.id) (\(job.kind)) \(job.state) after \(job.attempts) attempt\(job.attempts == 1 ? "" : "s")"
            + (job.error.map { ": \($0)" } ?? "")
    }
}

extension StoredRetry {
    /// A policy's numbers.
    init(_ policy: RetryPolicy) {
        self.init(
            maxAttempts: policy.maxAttempts, initialMilliseconds: QueueClock.milliseconds(policy.initial),
            multiplier: policy.multiplier, maximumMilliseconds: QueueClock.milliseconds(policy.maximum), jitter: policy.jitter)
    }

    /// The policy these numbers make.
    var policy: RetryPolicy {
        maxAttempts <= 1
            ? .none
            : .exponential(
                attempts: maxAttempts, initial: .milliseconds(initialMilliseconds), multiplier: multiplier,
                max: .milliseconds(maximumMilliseconds), jitter: jitter)
    }
}

extension DurableQueue {
    /// Runs jobs of the registered kinds, up to `maxConcurrency` at once, until the task is
    /// cancelled. Then running bodies are cancelled and their jobs released, to run again at
    /// once here or elsewhere.
    ///
    /// Several `work` calls, in one process or many, may work the same store.
    /// - Throws: ``QueueError`` when the store fails (its running jobs are released first).
    public func work(maxConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount) async throws {
        try await work(maxConcurrency: maxConcurrency, drainingOnShutdownWithin: nil)
    }

    /// Works as ``work(maxConcurrency:)``; with `grace`, a graceful shutdown of the service
    /// group it runs in (swift-service-lifecycle) drains it: see ``QueueWorker``.
    func work(maxConcurrency: Int, drainingOnShutdownWithin grace: Duration?) async throws {
        let worker = WorkLoop(queue: self, maxConcurrency: maxConcurrency)
        let number = workers.withLock { workers in
            let number = (workers.keys.max() ?? 0) + 1
            workers[number] = worker
            return number
        }
        defer { _ = workers.withLock { $0.removeValue(forKey: number) } }
        // After registering, so that a drain now sees this worker, or this worker sees it.
        if let drained = draining.withLock({ $0 }) { worker.drain(within: drained) }
        guard let grace else { return try await worker.run() }
        try await withGracefulShutdownHandler {
            try await worker.run()
        } onGracefulShutdown: {
            worker.drain(within: grace)
        }
    }

    /// Drains every ``work(maxConcurrency:)`` of this queue, now and from now on, as a
    /// ``QueueWorker`` does on a graceful shutdown: each claims no more jobs, gives back at once
    /// those it claimed ahead, and lets its running jobs finish for up to `grace`; those still
    /// running then are cancelled and released, to run again at once elsewhere, their attempts
    /// not counted. A body that ignores its cancellation for 2 s is waited for, its lease
    /// renewed, for up to a lease: if it returns a value, its job is done, not run again. Each
    /// `work` returns once its last end is recorded. Draining again changes nothing.
    public func drain(within grace: Duration) {
        let first = draining.withLock { draining -> Bool in
            guard draining == nil else { return false }
            draining = grace
            return true
        }
        guard first else { return }
        for worker in workers.withLock({ Array($0.values) }) { worker.drain(within: grace) }
    }
}
