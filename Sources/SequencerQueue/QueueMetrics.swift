import CoreMetrics
import Sequencer

/// The metrics of a durable queue, through swift-metrics: to the factory that the application
/// bootstrapped (`MetricsSystem.bootstrap`), or to one given in ``DurableQueue/Options/metrics``.
///
/// Every metric has the same label names every time (Prometheus refuses a name whose labels
/// vary): `kind` and `lane` (`""` for none), and `status` or `state` where there is one.
/// Counters and timers are counted by the process where the event happens, once each, so they
/// add up across processes; gauges are read from the database by one process at a time (see
/// ``QueueStore/readGauges(reader:now:holdUntil:)``).
public enum QueueMetricNames {
    /// Counter: jobs enqueued by this process (a key that matched a live job counts too).
    public static let enqueued = "sequencer_queue_jobs_enqueued_total"
    /// Counter: attempts ended, by `status`: `succeeded`, `failed` (for good), `retried` (failed,
    /// to run again), `cancelled`, `released` (its worker stopped; it runs again, uncounted),
    /// `fenced` (the end came from an attempt that no longer held the job: refused),
    /// `lease_expired` (taken back from a worker that ended or lost touch), or `skipped` (a job
    /// it needs did not succeed; it never runs). Skips that a cancel through
    /// ``DurableQueue/cancel(_:)`` caused, or that a run's cancel caused, are not counted.
    public static let ended = "sequencer_queue_jobs_ended_total"
    /// Timer: from when a job could run (its run time, its last need's end, or when its lease
    /// was taken back) to the start of its body.
    public static let waited = "sequencer_queue_wait_seconds"
    /// Timer: an attempt's run, by the same `status` as ``ended``, failures and cancels too.
    public static let ran = "sequencer_queue_run_seconds"
    /// Gauge: live jobs, by `kind`, `lane` and `state` (`waiting`, `scheduled`, `available`,
    /// `running`).
    public static let depth = "sequencer_queue_jobs"
    /// Gauge: how long the oldest available job whose run time has come has waited, by `kind`
    /// and `lane`.
    public static let oldestAge = "sequencer_queue_oldest_available_age_seconds"
    /// Gauge: workers alive, from their heartbeats.
    public static let workers = "sequencer_queue_workers"
}

/// Reports a queue's metrics; one per ``DurableQueue``. Handlers are made once per label set
/// and kept: making one costs a factory's lock and a dictionary look-up.
final class QueueMetrics: Sendable {
    struct Key: Hashable {
        let name: String
        let kind: String
        let lane: String
        let status: String

        /// Its labels: always the same names for one metric (see ``QueueMetricNames``).
        var dimensions: [(String, String)] {
            switch name {
            case QueueMetricNames.workers: []
            case QueueMetricNames.ended, QueueMetricNames.ran: [("kind", kind), ("lane", lane), ("status", status)]
            case QueueMetricNames.depth: [("kind", kind), ("lane", lane), ("state", status)]
            default: [("kind", kind), ("lane", lane)]
            }
        }
    }

    /// Where the metrics go.
    let factory: any MetricsFactory
    /// False when nothing receives them (the factory is swift-metrics' no-op one): then no
    /// process reads gauges from the database for them.
    let reported: Bool
    private let counters = Locked<[Key: Counter]>([:])
    private let timers = Locked<[Key: CoreMetrics.Timer]>([:])
    /// The gauges this process set, with the label sets of the last reading.
    private let gauges = Locked<[Key: Gauge]>([:])

    init(factory: (any MetricsFactory)?) {
        let factory = factory ?? MetricsSystem.factory
        self.factory = factory
        reported = !(factory is NOOPMetricsHandler)
    }

    func enqueued(kind: String, lane: String?) {
        counter(Key(name: QueueMetricNames.enqueued, kind: kind, lane: lane ?? "", status: "")).increment()
    }

    /// An attempt ended with `status`; it ran for `ran` nanoseconds (nil: it did not run here).
    func ended(kind: String, lane: String?, status: String, ranNanoseconds: Int64?) {
        counter(Key(name: QueueMetricNames.ended, kind: kind, lane: lane ?? "", status: status)).increment()
        if let ranNanoseconds {
            timer(Key(name: QueueMetricNames.ran, kind: kind, lane: lane ?? "", status: status)).recordNanoseconds(max(0, ranNanoseconds))
        }
    }

    /// Jobs the store skipped, or took back from a worker whose lease ran out, in a call of
    /// this process.
    func storeEnded(_ ends: [StoreEnd]) {
        for end in ends { ended(kind: end.kind, lane: end.lane, status: end.reason.rawValue, ranNanoseconds: nil) }
    }

    func waited(kind: String, lane: String?, milliseconds: Int64) {
        timer(Key(name: QueueMetricNames.waited, kind: kind, lane: lane ?? "", status: "")).recordMilliseconds(max(0, milliseconds))
    }

    /// Sets the gauges to a reading at `now`: every label set seen before and absent now is
    /// set to zero, not dropped, so that a graph shows a queue emptying.
    func show(_ reading: QueueGauges, now: Int64) {
        var values: [Key: Double] = [:]
        for (group, states) in reading.depth {
            for state in QueueGauges.State.allCases {
                values[Key(name: QueueMetricNames.depth, kind: group.kind, lane: group.lane, status: state.rawValue)] = Double(states[state] ?? 0)
            }
        }
        for (group, since) in reading.oldestAvailableSince {
            values[Key(name: QueueMetricNames.oldestAge, kind: group.kind, lane: group.lane, status: "")] = Double(max(0, now - since)) / 1000
        }
        values[Key(name: QueueMetricNames.workers, kind: "", lane: "", status: "")] = Double(reading.workersAlive)
        let set = gauges.withLock { gauges -> [(Gauge, Double)] in
            for key in values.keys where gauges[key] == nil { gauges[key] = Gauge(label: key.name, dimensions: key.dimensions, factory: factory) }
            return gauges.map { key, gauge in (gauge, values[key] ?? 0) }
        }
        for (gauge, value) in set { gauge.record(value) }
    }

    /// Removes this process's gauges: another process reads them now, and a value left here
    /// would be reported twice, and go stale.
    func hideGauges() {
        let gone = gauges.withLock { gauges in
            defer { gauges = [:] }
            return Array(gauges.values)
        }
        for gauge in gone { gauge.destroy() }
    }

    private func counter(_ key: Key) -> Counter {
        if let counter = counters.withLock({ $0[key] }) { return counter }
        let made = Counter(label: key.name, dimensions: key.dimensions, factory: factory)
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            counters[key] = made
            return made
        }
    }

    private func timer(_ key: Key) -> CoreMetrics.Timer {
        if let timer = timers.withLock({ $0[key] }) { return timer }
        let made = CoreMetrics.Timer(label: key.name, dimensions: key.dimensions, factory: factory)
        return timers.withLock { timers in
            if let timer = timers[key] { return timer }
            timers[key] = made
            return made
        }
    }
}
