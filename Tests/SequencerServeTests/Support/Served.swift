import Foundation
import SequencerTestHelpers
import Testing

/// `sequencer-serve` started on a free port for one test, and the `sequencer` binary beside
/// it, both as built by the package.
final class Served {
    let process: Process
    /// `http://127.0.0.1:PORT` (no slash at the end).
    let base: String
    private let output: Pipe

    static var products: URL { Bundle.main.bundleURL.deletingLastPathComponent() }

    static func binary(_ name: String) -> URL {
        let beside = products.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return Bundle.main.bundleURL.appendingPathComponent(name)
    }

    convenience init(journal: String, arguments: [String] = []) async throws {
        try await self.init(arguments: ["--journal", journal] + arguments)
    }

    /// `sequencer-serve ARGUMENTS --port 0`.
    init(arguments: [String]) async throws {
        process = Process()
        process.executableURL = Self.binary("sequencer-serve")
        process.arguments = arguments + ["--port", "0"]
        output = closingOnExec()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        // Its first line: `sequencer serve: http://127.0.0.1:PORT/ (journal …)`.
        let handle = output.fileHandleForReading
        let line = await blocking { () -> String in
            var bytes: [UInt8] = []
            while let byte = try? handle.read(upToCount: 1), let first = byte.first, first != 10 { bytes.append(first) }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let start = line.range(of: "http://"), let end = line[start.lowerBound...].firstIndex(of: " ") else {
            process.terminate()
            throw Browser.Failure(description: "sequencer-serve printed no address: '\(line)'")
        }
        var address = String(line[start.lowerBound..<end])
        if address.hasSuffix("/") { address.removeLast() }
        base = address
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Runs `sequencer ARGUMENTS` in `directory` to its end: its exit status and what it printed.
    static func sequencer(_ arguments: [String], in directory: URL) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = binary("sequencer")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["CI"] = "true"
        process.environment = environment
        let out = closingOnExec(), err = closingOnExec()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Bounded reads: a process that inherited a pipe (a job's, a helper's) must not hang the test.
        let pid = process.processIdentifier
        async let stdout = blocking { readToEnd(out.fileHandleForReading, hasEnded: { hasEnded(pid) }).data }
        async let stderr = blocking { readToEnd(err.fileHandleForReading, hasEnded: { hasEnded(pid) }).data }
        let (printed, errors) = await (stdout, stderr)
        await blocking { process.waitUntilExit() }
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }
}

/// Runs `work`, which blocks (a read, a wait), on a thread of its own (see ``onOwnThread(_:)``).
func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await onOwnThread(work)
}
