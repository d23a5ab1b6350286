/// Where a job is in its life, as the scheduler sees it.
enum JobPhase: UInt8, CaseIterable {
    /// Some of its needs have not finished.
    case waiting
    /// Its needs succeeded; it waits for its turn or a free slot in its lane.
    case laneWaiting
    /// In the ready queue, holding its lane slot, waiting for a worker.
    case queued
    /// Taken by a worker.
    case running
    case succeeded
    case failed
    case cancelled
    case skipped
    case timedOut

    var isTerminal: Bool { rawValue >= JobPhase.succeeded.rawValue }
    var isPending: Bool { rawValue < JobPhase.running.rawValue }
}

/// How many jobs are in each phase; fixed fields, so counting allocates nothing.
struct PhaseCounts {
    private var waiting = 0, laneWaiting = 0, queued = 0, running = 0
    private var succeeded = 0, failed = 0, cancelled = 0, skipped = 0, timedOut = 0

    subscript(phase: JobPhase) -> Int {
        get {
            switch phase {
            case .waiting: waiting
            case .laneWaiting: laneWaiting
            case .queued: queued
            case .running: running
            case .succeeded: succeeded
            case .failed: failed
            case .cancelled: cancelled
            case .skipped: skipped
            case .timedOut: timedOut
            }
        }
        set {
            switch phase {
            case .waiting: waiting = newValue
            case .laneWaiting: laneWaiting = newValue
            case .queued: queued = newValue
            case .running: running = newValue
            case .succeeded: succeeded = newValue
            case .failed: failed = newValue
            case .cancelled: cancelled = newValue
            case .skipped: skipped = newValue
            case .timedOut: timedOut = newValue
            }
        }
    }
}

/// Why a run stopped starting jobs before all of them ran.
enum StopReason: Equatable {
    /// A job failed and the run does not keep going.
    case failure(Int32)
    /// `Run.cancel()` was called.
    case cancelled
    /// The run's deadline passed.
    case deadline
}

/// What a worker reports after running a job's body.
struct Completion {
    enum Result {
        case succeeded(any Sendable)
        case threw(any Error)
        /// The job's own timeout passed.
        case timedOut
    }

    var result: Result
    var attempts: Int
    /// Nanoseconds since the run started.
    var startedAt: Int64
    var endedAt: Int64
}

/// Why a job ended without succeeding: recorded by the scheduler, read by the report.
struct FailureRecord {
    var code: JobError.Code
    var underlying: (any Error)?
    /// The job whose failure this one inherits (a need), or nil when it started here.
    var cause: Int32?
}
