/// One job's state during a run, packed into 32 bytes so that updating a job touches one
/// cache line: a million jobs need 32 MB. Optional fields are stored with a sentinel inside
/// and read as optionals.
///
/// How many of its needs are still unmet is kept apart, in ``SchedulerState/unmetNeeds``:
/// releasing a job's dependents then touches 4 bytes of each, as Kahn's algorithm does, not a
/// cache line of each.
struct JobState {
    private var laneNumber: Int32
    /// Where its dependents start in the plan's `dependents`, and how many there are: read from
    /// here, in the cache line its end has just touched, rather than from the plan.
    private var firstDependent: Int32
    private var dependentCount: Int32
    var phase: JobPhase
    /// Its effective priority (raised by the jobs that need it).
    var priority: Priority
    var attempts: UInt16 = 0
    private var start: Int64 = -1
    /// Nanoseconds from the run's start to its end; -1 until it ends (as the journal's records keep it).
    var endedAt: Int64 = -1

    /// A job's state; `dependents` is the range of its dependents in the plan's `dependents`
    /// (empty for a job added at run time, whose dependents are kept in ``AddedJobs``).
    init(lane: Int?, dependents: Range<Int32> = 0..<0, phase: JobPhase = .waiting, priority: Priority) {
        laneNumber = lane.map { Int32($0) } ?? -1
        firstDependent = dependents.lowerBound
        dependentCount = dependents.upperBound - dependents.lowerBound
        self.phase = phase
        self.priority = priority
    }

    /// Its lane, by position in the scheduler's lanes.
    var lane: Int? {
        get { laneNumber >= 0 ? Int(laneNumber) : nil }
        set { laneNumber = newValue.map { Int32($0) } ?? -1 }
    }

    /// Its dependents' positions in the plan's `dependents`.
    var dependentEdges: Range<Int> { Int(firstDependent)..<Int(firstDependent + dependentCount) }

    /// Nanoseconds from the run's start to when a worker took it; nil when it never started.
    var startedAt: Int64? {
        get { start >= 0 ? start : nil }
        set { start = newValue ?? -1 }
    }
}

/// Every job's state, by job number: the plan's jobs first, then jobs added while the run runs.
/// A queue forgets its oldest finished jobs (see ``Window``).
typealias JobTable = Window<JobState>
