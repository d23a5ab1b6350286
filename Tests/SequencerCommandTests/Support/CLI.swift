import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Runs the built `sequencer` binary, as a user would, in a directory of its own.
struct CLI {
    /// What a run of the binary printed and how it exited.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Both streams, for messages that may go to either.
        var output: String { stdout + stderr }
    }

    /// A new empty directory for one test's files.
    let directory: URL
    /// Removes the directory when the last copy of this goes.
    private let files: TemporaryDirectory

    init() throws {
        files = try TemporaryDirectory(prefix: "sequencer-cli")
        directory = files.url
    }

    /// The `sequencer` executable, built beside the test bundle.
    static var binary: URL {
        let products = Bundle.main.bundleURL.deletingLastPathComponent()
        let beside = products.appendingPathComponent("sequencer")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return Bundle.main.bundleURL.appendingPathComponent("sequencer")
    }

    /// Writes a file into the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func read(_ name: String) -> String? { try? String(contentsOfFile: path(name), encoding: .utf8) }

    /// Starts the binary (or `executable`) with `arguments` in the directory (or in
    /// `subdirectory` of it), without waiting.
    func start(
        _ arguments: [String], environment: [String: String] = [:], in subdirectory: String? = nil, executable: URL? = nil
    ) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = executable ?? Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = subdirectory.map { directory.appendingPathComponent($0, isDirectory: true) } ?? directory
        var variables = ProcessInfo.processInfo.environment
        variables["CI"] = "true"
        for (name, value) in environment { variables[name] = value }
        process.environment = variables
        let stdout = closingOnExec(), stderr = closingOnExec()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return (process, stdout, stderr)
    }

    /// Stops a started `sequencer worker` with SIGINT and checks that it stopped as documented
    /// (exit status 130).
    func stopWorker(_ worker: (Process, Pipe, Pipe)) async throws -> Result {
        kill(worker.0.processIdentifier, SIGINT)
        let result = try await finish(worker.0, worker.1, worker.2)
        #expect(result.status == 130, "\(result.output)")
        return result
    }

    /// Runs the binary (or `executable`) to its end (killing it after `limit`, which fails the test).
    func run(
        _ arguments: [String], environment: [String: String] = [:], limit: Duration = .seconds(60), executable: URL? = nil
    ) async throws -> Result {
        let (process, stdout, stderr) = try start(arguments, environment: environment, executable: executable)
        return try await finish(process, stdout, stderr, limit: limit)
    }

    /// Reads both pipes to the end and waits for the process, killing it after `limit`.
    func finish(_ process: Process, _ stdout: Pipe, _ stderr: Pipe, limit: Duration = .seconds(60)) async throws -> Result {
        let watchdog = Task {
            try await Task.sleep(for: limit)
            if process.isRunning {
                Issue.record("sequencer \(process.arguments ?? []) still ran after \(limit); killed")
                kill(process.processIdentifier, SIGKILL)
            }
        }
        // Blocking reads and waits get threads of their own: on Swift's pool (two threads here)
        // they would starve every other test, including the ones that signal these processes.
        let pid = process.processIdentifier
        let ended: @Sendable () -> Bool = { hasEnded(pid) }
        async let out = onThread { readToEnd(stdout.fileHandleForReading, hasEnded: ended) }
        async let err = onThread { readToEnd(stderr.fileHandleForReading, hasEnded: ended) }
        let ((outData, outHeld), (errData, errHeld)) = await (out, err)
        if outHeld || errHeld {
            let holders = pipeHolders(outHeld ? stdout.fileHandleForReading : stderr.fileHandleForReading)
            Issue.record("sequencer \(process.arguments ?? []) ended, but another process still held its output pipe open: \(holders)")
        }
        await onThread { process.waitUntilExit() }
        watchdog.cancel()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs the binary to its end with stdout and stderr in `stdout.txt` and `stderr.txt`, and
    /// returns its exit status and its peak memory: the highest `VmHWM` of `/proc/PID/status`
    /// read every 2 ms while it ran (Linux). (`wait4`'s peak is no use: a process spawned by a
    /// large one starts with its parent's memory counted.) It runs in the test process's
    /// directory: give it absolute paths.
    func runMeasuringMemory(_ arguments: [String]) async throws -> (status: Int32, peakKiB: Int) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, path("stdout.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, path("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        closeInheritedDescriptors(&actions)
        let argv = ([Self.binary.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environment = ProcessInfo.processInfo.environment.merging(["CI": "true"]) { $1 }
            .map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in environment { free(pointer) } }
        var pid = pid_t()
        guard posix_spawn(&pid, Self.binary.path, &actions, nil, argv, environment) == 0 else {
            throw CocoaError(.executableLoad)
        }
        let spawned = pid
        return await onThread {
            var peak = 0
            var waitStatus: Int32 = 0
            while true {
                // Read before reaping: a reaped (or zombie) process has no memory figures.
                let status = (try? String(contentsOfFile: "/proc/\(spawned)/status", encoding: .utf8)) ?? ""
                if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                   let kib = Int(line.split(separator: " ").dropFirst().first ?? "") {
                    peak = max(peak, kib)
                }
                if waitpid(spawned, &waitStatus, WNOHANG) == spawned { break }
                usleep(2_000)
            }
            return ((waitStatus >> 8) & 0xff, peak)
        }
    }
}

/// Runs a blocking call on a new thread, so it holds no thread of Swift's concurrency pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
