/// One job's state during a run, packed into 32 bytes so that updating a job touches one
/// cache line: a million jobs need 32 MB. Optional fields are stored with a sentinel inside
/// and read as optionals.
struct JobState {
    /// How many of its needs have not succeeded yet.
    var remaining: Int32
    private var laneNumber: Int32
    /// Where its dependents start in the plan's `dependents` (they end where the next job's start).
    var firstDependent: Int32
    var phase: JobPhase
    /// Its effective priority (raised by the jobs that need it).
    var priority: Priority
    var attempts: UInt16 = 0
    private var start: Int64 = -1
    /// Nanoseconds from the run's start to its end; -1 until it ends (as the journal's records keep it).
    var endedAt: Int64 = -1

    init(remaining: Int32, lane: Int?, firstDependent: Int32, phase: JobPhase = .waiting, priority: Priority) {
        self.remaining = remaining
        laneNumber = lane.map { Int32($0) } ?? -1
        self.firstDependent = firstDependent
        self.phase = phase
        self.priority = priority
    }

    /// Its lane, by position in the scheduler's lanes.
    var lane: Int? {
        get { laneNumber >= 0 ? Int(laneNumber) : nil }
        set { laneNumber = newValue.map { Int32($0) } ?? -1 }
    }

    /// Nanoseconds from the run's start to when a worker took it; nil when it never started.
    var startedAt: Int64? {
        get { start >= 0 ? start : nil }
        set { start = newValue ?? -1 }
    }
}

/// Every job's state, by job number: the plan's jobs first, then jobs added while the run runs.
/// A queue forgets its oldest finished jobs (see ``Window``).
typealias JobTable = Window<JobState>
