
/// A worker's presence in a store, renewed with its heartbeats: how many workers are alive, and
/// what each holds, read from the database whatever process asks.
public struct WorkerBeat: Sendable, Hashable, Codable {
    /// The worker's name in leases (``AttemptEnd/owner``).
    public var owner: String
    public var host: String
    public var pid: Int32
    /// When it began to work, in milliseconds since 1970.
    public var startedAt: Int64
    /// How many jobs it holds (running, or claimed ahead).
    public var holding: Int
    /// Until when it counts as alive without another beat: its lease's length after the beat.
    public var aliveUntil: Int64
    /// The kinds it runs, sorted: what the queue page offers to enqueue.
    public var kinds: [String]
    /// When it last beat, in milliseconds since 1970 (a store sets it: the `now` of ``QueueStore/beat(_:now:)``).
    public var beatAt: Int64

    public init(
        owner: String, host: String, pid: Int32, startedAt: Int64, holding: Int, aliveUntil: Int64, kinds: [String] = [],
        beatAt: Int64 = 0
    ) {
        self.owner = owner
        self.host = host
        self.pid = pid
        self.startedAt = startedAt
        self.holding = holding
        self.aliveUntil = aliveUntil
        self.kinds = kinds.sorted()
        self.beatAt = beatAt
    }

    /// Its kinds as a store keeps them: one a line.
    package var kindsText: String { kinds.joined(separator: "\n") }

    package static func kinds(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }
}

/// What a worker's turn did (``QueueStore/finishAndClaim(_:kinds:limit:slots:owner:now:leaseUntil:)``).
public struct StoreTurn: Sendable, Hashable {
    /// Whether each end was recorded, in order (false: fenced, the attempt no longer held the job).
    public var recorded: [Bool]
    /// The jobs claimed.
    public var claimed: [ClaimedJob]
    /// The jobs the ends skipped: they needed a job that failed or was cancelled.
    public var skipped: [StoreEnd]

    public init(recorded: [Bool] = [], claimed: [ClaimedJob] = [], skipped: [StoreEnd] = []) {
        self.recorded = recorded
        self.claimed = claimed
        self.skipped = skipped
    }
}

/// A job that a store ended, or took back, on its own in a call: what the metrics count as
/// `skipped` and `lease_expired` (``QueueMetricNames/ended``), in the process that made the call.
public struct StoreEnd: Sendable, Hashable {
    public enum Reason: String, Sendable, Hashable {
        /// A job it needs failed, was cancelled or was skipped: it never runs.
        case skipped
        /// Its worker's lease ran out while it ran: taken back, to run again (or failed as poison).
        case leaseExpired = "lease_expired"
    }

    public var id: DurableJobID
    public var kind: String
    public var lane: String?
    public var reason: Reason

    public init(id: DurableJobID, kind: String, lane: String?, reason: Reason) {
        self.id = id
        self.kind = kind
        self.lane = lane
        self.reason = reason
    }
}

/// What a queue's gauges show, read from the database in one transaction: the same for every
/// process that reads it, and right however many processes enqueue and work.
public struct QueueGauges: Sendable, Hashable {
    /// Jobs of one kind and lane (`""` for none).
    public struct Group: Sendable, Hashable, Comparable {
        public var kind: String
        public var lane: String

        public init(kind: String, lane: String) {
            self.kind = kind
            self.lane = lane
        }

        public static func < (a: Group, b: Group) -> Bool { (a.kind, a.lane) < (b.kind, b.lane) }
    }

    /// A live state, as the gauges name it: `scheduled` is an available job whose run time
    /// has not come (a retry's delay, or a job enqueued for later).
    public enum State: String, Sendable, Hashable, CaseIterable, Comparable {
        case waiting, scheduled, available, running

        public static func < (a: State, b: State) -> Bool {
            allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
        }
    }

    /// How many live jobs each group has in each state; groups with none are absent.
    public var depth: [Group: [State: Int]]
    /// For each group with available jobs whose run time has come: since when the oldest of
    /// them could run, in milliseconds since 1970 (its run time, or when its last need ended).
    public var oldestAvailableSince: [Group: Int64]
    /// Workers whose last beat holds (``WorkerBeat/aliveUntil`` after the reading's time).
    public var workersAlive: Int

    public init(depth: [Group: [State: Int]] = [:], oldestAvailableSince: [Group: Int64] = [:], workersAlive: Int = 0) {
        self.depth = depth
        self.oldestAvailableSince = oldestAvailableSince
        self.workersAlive = workersAlive
    }
}

extension QueueGauges.State {
    /// A live job's stored state, `scheduled` for an available one whose run time is `later`;
    /// nil for an ended one.
    package init?(stored raw: Int, later: Bool) {
        switch DurableJobState(rawValue: raw) {
        case .waiting?: self = .waiting
        case .available?: self = later ? .scheduled : .available
        case .running?: self = .running
        default: return nil
        }
    }
}

extension QueueStore {
    /// None: this store keeps no workers' beats.
    public func beat(_ worker: WorkerBeat, now: Int64) async throws {}

    /// None: this store keeps no workers' beats.
    public func workerStopped(_ owner: String) async throws {}

    /// None: this store has no gauges, and no process reports them.
    public func readGauges(reader: String, now: Int64, holdUntil: Int64) async throws -> QueueGauges? { nil }

    /// None: this store has no gauges.
    public func releaseGauges(reader: String) async throws {}

    /// None: this store keeps no workers' beats.
    public func workers(now: Int64) async throws -> [WorkerBeat] { [] }
}
