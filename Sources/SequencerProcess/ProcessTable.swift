#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The runs of one ``ProcessRunner``, from `run` being called until the process is reaped:
/// a state machine whose methods say which signals to send. The runner calls them under its
/// lock and sends those signals before releasing it.
///
/// Why under the lock: a process group's ID is its leader's pid, which the system may give to a
/// new process once the leader is reaped. Reaping happens under the same lock and removes the
/// entry, so a pid that a method returns is never a reaped one while the lock is held, and
/// `kill(-pid, signal)` reaches our group and no other.
struct ProcessTable: Sendable {
    /// One run.
    struct Entry: Sendable {
        /// The child once spawned; `nil` before.
        var pid: pid_t?
        /// Resumed with the exit once the child is reaped.
        var continuation: CheckedContinuation<ProcessExit, any Error>?
        /// The calling task was cancelled: SIGTERM sent or to send.
        var cancelled = false
        /// Signals from `signalAll` that arrived while the child was being spawned.
        var pendingSignals: [Int32] = []
        /// The sleep before SIGKILL, cancelled when the child is reaped.
        var escalation: Task<Void, Never>?
    }

    /// What to do once a child has been spawned.
    struct Started {
        /// Signals to send to its group now.
        var signals: [Int32]
        /// Whether to start the wait before SIGKILL (the run was cancelled meanwhile).
        var escalate: Bool
    }

    private var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64 = 0

    /// Runs not yet reaped (or abandoned before spawning).
    var count: Int { entries.count }

    /// Records a new run, not spawned yet.
    ///
    /// - Returns: The run's ID.
    mutating func add() -> UInt64 {
        nextID += 1
        entries[nextID] = Entry()
        return nextID
    }

    /// Whether run `id` may spawn its child; if not (it was cancelled), forgets it.
    mutating func shouldStart(_ id: UInt64) -> Bool {
        guard entries[id]?.cancelled == false else {
            entries[id] = nil
            return false
        }
        return true
    }

    /// Forgets run `id`, whose spawn failed.
    mutating func remove(_ id: UInt64) {
        entries[id] = nil
    }

    /// Records the child of run `id`.
    ///
    /// - Returns: Signals to send to the child's group now: those of `signalAll` calls made
    ///   during the spawn, and SIGTERM if the run was cancelled during the spawn.
    mutating func started(_ id: UInt64, pid: pid_t) -> Started {
        guard var entry = entries[id] else { return Started(signals: [], escalate: false) }
        entry.pid = pid
        var started = Started(signals: entry.pendingSignals, escalate: entry.cancelled)
        if entry.cancelled { started.signals.append(SIGTERM) }
        entry.pendingSignals = []
        entries[id] = entry
        return started
    }

    /// Keeps the continuation that the reap of run `id` resumes.
    mutating func attach(_ id: UInt64, _ continuation: CheckedContinuation<ProcessExit, any Error>) {
        entries[id]?.continuation = continuation
    }

    /// Marks run `id` cancelled.
    ///
    /// - Returns: The child to send SIGTERM to (and then, after the grace period, SIGKILL),
    ///   or `nil` if it has not been spawned yet, is reaped, or was cancelled before.
    mutating func cancel(_ id: UInt64) -> pid_t? {
        guard var entry = entries[id], !entry.cancelled else { return nil }
        entry.cancelled = true
        entries[id] = entry
        return entry.pid
    }

    /// Keeps the SIGKILL timer of run `id`, so that reaping cancels it.
    ///
    /// - Returns: `false` if the child is already reaped: cancel the timer.
    mutating func setEscalation(_ id: UInt64, _ task: Task<Void, Never>) -> Bool {
        guard entries[id] != nil else { return false }
        entries[id]?.escalation = task
        return true
    }

    /// The unreaped child of run `id`, if any.
    func pid(of id: UInt64) -> pid_t? {
        entries[id]?.pid
    }

    /// Forgets run `id`, whose child has been reaped.
    ///
    /// - Returns: The run's entry, with its continuation and SIGKILL timer.
    mutating func reaped(_ id: UInt64) -> Entry? {
        entries.removeValue(forKey: id)
    }

    /// Applies `signalAll(signal)`.
    ///
    /// - Returns: The children to send `signal` to now. Runs being spawned get it as soon as
    ///   their child exists.
    mutating func signalAll(_ signal: Int32) -> [pid_t] {
        var pids: [pid_t] = []
        for id in entries.keys {
            if let pid = entries[id]?.pid {
                pids.append(pid)
            } else {
                entries[id]?.pendingSignals.append(signal)
            }
        }
        return pids
    }
}
