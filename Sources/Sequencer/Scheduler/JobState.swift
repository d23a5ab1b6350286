/// One job's state during a run, packed into 32 bytes so that updating a job touches one
/// cache line: a million jobs need 32 MB.
struct JobState {
    /// How many of its needs have not succeeded yet.
    var remaining: Int32
    /// Its lane, or -1.
    var lane: Int32
    /// Where its dependents start in the plan's `dependents` (they end where the next job's start).
    var firstDependent: Int32
    var phase: JobPhase
    /// Its effective priority (raised by the jobs that need it).
    var priority: Priority
    var attempts: UInt16 = 0
    /// Nanoseconds from the run's start; -1 when it never started.
    var startedAt: Int64 = -1
    var endedAt: Int64 = -1
}
