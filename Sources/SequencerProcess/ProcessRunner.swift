#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Sequencer

/// Runs programs as child processes, each in its own process group with its output in a file,
/// and stops them when the calling task is cancelled.
///
/// ```swift
/// let runner = ProcessRunner()
/// let command = ProcessCommand.shell("make -j4 all", environment: ["PATH": "/usr/bin:/bin"], directory: "/src")
/// let exit = try await runner.run(command, outputPath: "/tmp/all.log")
/// print(exit)   // exit code 0
/// ```
///
/// Waiting for children blocks no thread of Swift's concurrency pool: on Linux one thread, shared
/// by all runners, waits in `epoll_wait` on a pidfd per child; elsewhere (or without pidfds) a
/// thread per running child waits in `waitid`. The runner only ever waits for its own children
/// by pid, never for "any child", so it takes no other code's children.
///
/// Signals go to a process group only while its leader is unreaped (its pid, the group's ID,
/// cannot be reused until then).
public final class ProcessRunner: Sendable {
    private let terminationGrace: Duration
    private let waiting: ExitWaiting
    private let table = Locked(ProcessTable())

    /// Creates a runner.
    ///
    /// - Parameter terminationGrace: How long a cancelled process's group has between SIGTERM and SIGKILL.
    public convenience init(terminationGrace: Duration = .seconds(2)) {
        self.init(terminationGrace: terminationGrace, waiting: .automatic)
    }

    /// Creates a runner that waits for its children in the given way.
    ///
    /// - Parameters:
    ///   - terminationGrace: How long a cancelled process's group has between SIGTERM and SIGKILL.
    ///   - waiting: How to learn that a child has exited.
    package init(terminationGrace: Duration = .seconds(2), waiting: ExitWaiting) {
        self.terminationGrace = terminationGrace
        self.waiting = waiting
    }

    /// Runs not finished yet: spawning, running, or exited and not yet reaped.
    package var unfinishedCount: Int { table.withLock { $0.count } }

    /// Runs the command in its own new process group (its pgid is its pid), stdin from `/dev/null`,
    /// stdout and stderr both written to the file at `outputPath` (created or truncated, mode 0644
    /// less the umask) in the order the process writes them, default signal dispositions and an
    /// empty signal mask, and no other open descriptor (on glibc 2.34 or later and Darwin; older
    /// glibc passes on descriptors opened without close-on-exec). Returns when the process has
    /// exited and has been reaped.
    ///
    /// If the calling task is cancelled while the process runs: SIGTERM to the whole process group,
    /// then SIGKILL to the group if the process has not exited `terminationGrace` later; `run` then
    /// returns the exit (typically `.signaled(SIGTERM)`), it does not throw `CancellationError`.
    /// If the task is cancelled before the process is spawned, no process is spawned: the output
    /// file is created empty and `run` returns `.signaled(SIGTERM)`. Processes of the group that
    /// survive SIGTERM after the leader has exited are not pursued (their group's ID could by then
    /// belong to another group).
    ///
    /// The calling thread is held while the child is created (until its `exec`), not while it runs.
    /// A spawn that fails with "Text file busy" (a script that another job has just written: a
    /// child being spawned meanwhile holds a copy of the writer's descriptor for a moment) is
    /// tried again a few times within about 30 ms.
    ///
    /// - Parameters:
    ///   - command: What to run, with which environment and in which directory.
    ///   - outputPath: The file for stdout and stderr, relative to this process's working directory.
    /// - Returns: How the process ended.
    /// - Throws: `ProcessError` when the process cannot be started: no arguments, a missing
    ///   working directory, a program not found or not executable, an output file that cannot be
    ///   opened; or, with code `waitFailed`, when its exit cannot be collected because other code
    ///   in this program reaped it.
    public func run(_ command: ProcessCommand, outputPath: String) async throws -> ProcessExit {
        let plan = try SpawnPlan(command, outputPath: outputPath)
        let id = table.withLock { $0.add() }
        return try await withTaskCancellationHandler {
            let pid: pid_t
            do {
                defer { plan.release() }
                guard let spawned = try await spawn(id, plan) else { return .signaled(SIGTERM) }
                pid = spawned
            }
            return try await withCheckedThrowingContinuation { continuation in
                wait(id, pid, continuation)
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Sends `signal` to the process group of every process this runner has running (for example
    /// SIGKILL on a second Ctrl-C). A process being spawned gets it as soon as it exists.
    ///
    /// - Parameter signal: The signal, such as `SIGKILL`.
    public func signalAll(_ signal: Int32) {
        table.withLock { table in
            for pid in table.signalAll(signal) { signalGroup(pid, signal) }
        }
    }

    /// How many times a spawn that fails with ETXTBSY is tried again, after 1, 2, 4, 8 and 16 ms.
    ///
    /// A script that a job has just written can be "busy" for a moment after the writer closed it:
    /// a child being spawned at the same time on another thread holds a copy of the writer's
    /// descriptor until it closes its descriptors or calls `exec`.
    static let busyRetries = 5

    /// Spawns the child of run `id`, unless the run was cancelled first.
    ///
    /// - Returns: The child's pid, or `nil` if the run was cancelled before the spawn (the run is then forgotten).
    /// - Throws: `ProcessError` if the spawn failed (the run is then forgotten).
    private func spawn(_ id: UInt64, _ plan: SpawnPlan) async throws(ProcessError) -> pid_t? {
        var retries = 0
        while true {
            guard table.withLock({ $0.shouldStart(id) }) else { return nil }
            switch plan.spawn() {
            case .success(let pid):
                let escalate = table.withLock { table in
                    let started = table.started(id, pid: pid)
                    for signal in started.signals { signalGroup(pid, signal) }
                    return started.escalate
                }
                if escalate { scheduleKill(id) }
                return pid
            case .failure(let failure) where failure.number == ETXTBSY && retries < Self.busyRetries:
                try? await Task.sleep(for: .milliseconds(1 << retries))
                retries += 1
            case .failure(let failure):
                table.withLock { $0.remove(id) }
                throw failure.error
            }
        }
    }

    /// Resumes `continuation` once the child `pid` of run `id` has exited and has been reaped.
    private func wait(_ id: UInt64, _ pid: pid_t, _ continuation: CheckedContinuation<ProcessExit, any Error>) {
        // Kept before the watch starts, so that the reap finds it; a child that has exited
        // meanwhile is still a zombie, and the watch reports it at once.
        table.withLock { $0.attach(id, continuation) }
        waiting.watch(pid) { [self] in reap(id, pid) }
    }

    private func cancel(_ id: UInt64) {
        let terminated = table.withLock { table in
            guard let pid = table.cancel(id) else { return false }
            signalGroup(pid, SIGTERM)
            return true
        }
        if terminated { scheduleKill(id) }
    }

    /// SIGKILL to run `id`'s group after the grace period, unless its child is reaped first.
    private func scheduleKill(_ id: UInt64) {
        let grace = terminationGrace
        let timer = Task { [self] in
            do { try await Task.sleep(for: grace) } catch { return }
            table.withLock { table in
                if let pid = table.pid(of: id) { signalGroup(pid, SIGKILL) }
            }
        }
        if !table.withLock({ $0.setEscalation(id, timer) }) { timer.cancel() }
    }

    /// Reaps `pid`, which has exited, and resumes its `run`.
    private func reap(_ id: UInt64, _ pid: pid_t) {
        let reaped = table.withLock { table -> (entry: ProcessTable.Entry?, result: Result<Int32, ProcessError>)? in
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, WNOHANG) } while result < 0 && errno == EINTR
            if result == 0 { return nil }
            let exit: Result<Int32, ProcessError> = result == pid
                ? .success(status)
                : .failure(ProcessError(code: .waitFailed, message: "cannot collect the exit of process \(pid): \(systemMessage(errno))"))
            return (table.reaped(id), exit)
        }
        guard let reaped else {
            // Not exited after all (a pidfd closed by other code reads as ready): wait the slow way.
            ExitWaiting.threads.watch(pid) { [self] in reap(id, pid) }
            return
        }
        reaped.entry?.escalation?.cancel()
        reaped.entry?.continuation?.resume(with: reaped.result.map(ProcessExit.init(waitStatus:)).mapError { $0 as any Error })
    }

    /// `kill(-pid, signal)`, for a pid that is a group leader we have not reaped (never 0 or 1);
    /// `kill(pid, signal)` for a child that has no group of its own (``ProcessCommand/usesTerminal``).
    private func signalGroup(_ pid: pid_t, _ signal: Int32) {
        guard pid > 1 else { return }
        if kill(-pid, signal) != 0, errno == ESRCH { _ = kill(pid, signal) }
    }
}
