#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization
import SequencerProcess
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The runner's own cost per process: `/bin/true` run through ``ProcessRunner`` against a loop of
/// bare `posix_spawn` and `waitpid` doing the same system work (output file opened and truncated,
/// same file actions and attributes), one at a time and two at a time, and the cost of the one
/// thread hand-off the runner adds (a continuation resumed from another thread, no process).
/// Prints wall time, this process's CPU time (all threads; the children's own time is not in it)
/// and context switches per process, and how long `posix_spawn` holds the calling thread.
/// Asserts only that every run succeeded. Runs when `SEQUENCER_PROCESS_BENCH` is set (a count):
///
///     SEQUENCER_PROCESS_BENCH=2000 swift test -c release -Xswiftc -enable-testing --filter ProcessBenchmark
@Suite struct ProcessBenchmark {
    static let count = ProcessInfo.processInfo.environment["SEQUENCER_PROCESS_BENCH"].flatMap { Int($0) }

    @Test(.enabled(if: count != nil)) func overheadPerProcess() async throws {
        let count = Self.count ?? 2000
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let command = ProcessCommand(arguments: ["/bin/true"], environment: ["PATH": testPath], directory: directory.path)
        var rows: [(name: String, wall: [Double], cpu: [Double], user: [Double], switches: [Double])] = []
        func record(_ name: String, _ body: () async throws -> Double) async rethrows {
            let before = Self.usage()
            let wall = try await body()
            let after = Self.usage()
            let cpu = (after.cpu - before.cpu) / Double(count)
            let user = (after.user - before.user) / Double(count)
            let switches = (after.switches - before.switches) / Double(count)
            if let index = rows.firstIndex(where: { $0.name == name }) {
                rows[index].wall.append(wall)
                rows[index].cpu.append(cpu)
                rows[index].user.append(user)
                rows[index].switches.append(switches)
            } else {
                rows.append((name, [wall], [cpu], [user], [switches]))
            }
        }
        _ = try await Self.runner(ProcessRunner(), command, directory, count: 100, width: 1)
        for _ in 0..<3 {
            for width in [1, 2] {
                await record("raw posix_spawn + waitpid, \(width) at a time") { Self.raw(directory, count: count, width: width) }
                for waiting in ExitWaiting.allCases {
                    let runner = ProcessRunner(waiting: waiting)
                    try await record("ProcessRunner (\(waiting)), \(width) at a time") {
                        try await Self.runner(runner, command, directory, count: count, width: width)
                    }
                }
            }
        }
        for _ in 0..<3 {
            await record("baseline: await a continuation resumed by another thread (no process)") { await Self.handoff(count: count) }
        }
        func median(_ figures: [Double]) -> String { String(format: "%.1f", figures.sorted()[figures.count / 2]) }
        print("Process overhead, \(count) runs of /bin/true, µs per process, median of 3 rounds (min wall):")
        for row in rows {
            print("  \(row.name): wall \(median(row.wall)) (\(String(format: "%.1f", row.wall.min() ?? 0))), this process's CPU \(median(row.cpu)) (user \(median(row.user))), context switches \(median(row.switches))")
        }
        print("  posix_spawn holds the calling thread for \(String(format: "%.1f", Double(Self.spawnCall.load(ordering: .relaxed)) / Double(Self.spawnCalls.load(ordering: .relaxed) * 1000))) µs on average (raw runs)")
    }

    private static let spawnCall = Atomic(0)
    private static let spawnCalls = Atomic(0)

    /// This process's CPU time in microseconds, the user part of it, and its context switches (voluntary and not).
    private static func usage() -> (cpu: Double, user: Double, switches: Double) {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        let user = Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec)
        return (cpu, user, Double(usage.ru_nvcsw + usage.ru_nivcsw))
    }

    /// Microseconds of wall time per run.
    private static func runner(_ runner: ProcessRunner, _ command: ProcessCommand, _ directory: TemporaryDirectory, count: Int, width: Int) async throws -> Double {
        let start = ContinuousClock.now
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for lane in 0..<width {
                let output = directory.file("runner\(lane).out")
                group.addTask {
                    var failures = 0
                    for _ in 0..<(count / width) where try await runner.run(command, outputPath: output) != .exited(0) { failures += 1 }
                    return failures
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(failures == 0)
        return microseconds(ContinuousClock.now - start) / Double(count)
    }

    /// Microseconds of wall time per round trip: a task suspends on a continuation, a waiting thread
    /// is woken and resumes it, as the runner's exit watcher does, without any process.
    private static func handoff(count: Int) async -> Double {
        let requests = DispatchSemaphore(value: 0)
        let pending = Mutex<CheckedContinuation<Void, Never>?>(nil)
        Thread.detachNewThread {
            for _ in 0..<count {
                requests.wait()
                pending.withLock { $0.take() }?.resume()
            }
        }
        let start = ContinuousClock.now
        for _ in 0..<count {
            await withCheckedContinuation { continuation in
                pending.withLock { $0 = continuation }
                requests.signal()
            }
        }
        return microseconds(ContinuousClock.now - start) / Double(count)
    }

    /// Microseconds of wall time per run, `width` threads each spawning and waiting in a loop.
    private static func raw(_ directory: TemporaryDirectory, count: Int, width: Int) -> Double {
        let failures = Atomic(0)
        let start = ContinuousClock.now
        let threads = DispatchGroup()
        for lane in 0..<width {
            threads.enter()
            let output = directory.file("raw\(lane).out")
            let path = directory.path
            Thread.detachNewThread {
                for _ in 0..<(count / width) where !rawRun(output: output, directory: path) { failures.add(1, ordering: .relaxed) }
                threads.leave()
            }
        }
        threads.wait()
        #expect(failures.load(ordering: .relaxed) == 0)
        return microseconds(ContinuousClock.now - start) / Double(count)
    }

    private static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }

    #if os(Linux)
    /// One run of /bin/true with the runner's system work and nothing else.
    private static func rawRun(output: String, directory: String) -> Bool {
        let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { close(fd) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fd, 1)
        posix_spawn_file_actions_adddup2(&actions, fd, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        _ = GNUFunctions.addChdir?(&actions, directory)
        _ = GNUFunctions.addCloseFrom?(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var every = sigset_t()
        sigfillset(&every)
        withUnsafeMutableBytes(of: &every) { $0.storeBytes(of: $0.load(as: UInt.self) | (1 << 31) | (1 << 32), as: UInt.self) }
        posix_spawnattr_setsigdefault(&attributes, &every)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        let envp: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { free(argv[0]); free(envp[0]) }
        var pid: pid_t = 0
        let before = ContinuousClock.now
        guard posix_spawn(&pid, "/bin/true", &actions, &attributes, argv, envp) == 0 else { return false }
        let components = (ContinuousClock.now - before).components
        spawnCall.add(Int(components.seconds) * 1_000_000_000 + Int(components.attoseconds / 1_000_000_000), ordering: .relaxed)
        spawnCalls.add(1, ordering: .relaxed)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status == 0
    }
    #else
    private static func rawRun(output: String, directory: String) -> Bool { false }
    #endif
}
