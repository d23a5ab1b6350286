import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Sequencer
import Testing

/// A `sequencer run --watch` (or another command that runs until stopped) started in a test's
/// directory, its output collected as it comes, so a test can wait for a line.
final class Watcher {
    /// What the reading threads share with the test (`Locked`, not `Mutex`: the sanitizer
    /// cannot see `Mutex`'s lock, and reported the two readers' last decrements as a race).
    private final class Collected: Sendable {
        let output = Locked("")
        let readers = Locked(0)
    }

    private let process: Process
    private let collected = Collected()

    /// Starts `sequencer run --watch ARGUMENTS` with a short debounce.
    convenience init(_ cli: CLI, _ arguments: [String] = []) throws {
        try self.init(cli, command: ["run", "--watch"] + arguments, environment: ["SEQUENCER_DEBOUNCE": "50ms"])
    }

    /// Starts `sequencer COMMAND` (another long-running one: `worker`).
    init(_ cli: CLI, command: [String], environment: [String: String] = [:]) throws {
        let (process, stdout, stderr) = try cli.start(command, environment: environment)
        self.process = process
        for pipe in [stdout, stderr] {
            let handle = pipe.fileHandleForReading
            let collected = collected
            collected.readers.withLock { $0 += 1 }
            Thread.detachNewThread {
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    collected.output.withLock { $0 += String(decoding: data, as: UTF8.self) }
                }
                collected.readers.withLock { $0 -= 1 }
            }
        }
    }

    /// Everything printed so far, both streams mixed.
    var text: String { collected.output.withLock { $0 } }

    /// How many times `line` was printed so far (as part of a line).
    func count(_ line: String) -> Int { text.components(separatedBy: line).count - 1 }

    /// Waits (two minutes at most) until `line` has been printed `times` times.
    func waitFor(_ line: String, times: Int = 1) async -> Bool {
        await eventually { self.count(line) >= times }
    }

    /// Waits (two minutes at most) until `line` has been printed after `earlier`.
    func waitFor(_ line: String, after earlier: String) async -> Bool {
        await eventually {
            let text = self.text
            guard let start = text.range(of: earlier) else { return false }
            return text[start.upperBound...].contains(line)
        }
    }

    /// Sends `signal` and waits for the end (killing it after two minutes, which fails the test).
    /// - Returns: the exit status.
    func stop(_ signal: Int32 = SIGINT) async -> Int32 {
        kill(process.processIdentifier, signal)
        let ended = await eventually { !self.process.isRunning && self.collected.readers.withLock { $0 == 0 } }
        if !ended {
            Issue.record("sequencer \(process.arguments ?? []) still ran two minutes after signal \(signal); killed. Output:\n\(text)")
            kill(process.processIdentifier, SIGKILL)
        }
        let process = process
        await onThread { process.waitUntilExit() }
        return process.terminationStatus
    }
}
