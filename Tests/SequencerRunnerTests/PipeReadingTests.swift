import Foundation
import SequencerTestHelpers
import Testing

/// The tests' pipe reader gives up on a pipe that a process outliving the child holds open,
/// instead of hanging the test run (as a watcher that inherited one did, for 20 minutes).
@Suite struct PipeReadingTests {
    @Test func aPipeHeldOpenAfterItsProcessEndedIsGivenUpOn() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The background sleep inherits the pipe and keeps it open after the shell exits.
        process.arguments = ["-c", "echo started; sleep 5 & exit 0"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let (data, heldOpen) = readToEnd(pipe.fileHandleForReading, hasEnded: { [pid = process.processIdentifier] in hasEnded(pid) }, grace: .milliseconds(300))
        #expect(heldOpen)
        #expect(String(decoding: data, as: UTF8.self) == "started\n")
    }

    @Test func aPipeThatEndsIsReadWhole() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "seq 1 20000"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let (data, heldOpen) = readToEnd(pipe.fileHandleForReading, hasEnded: { [pid = process.processIdentifier] in hasEnded(pid) })
        process.waitUntilExit()
        #expect(!heldOpen)
        #expect(String(decoding: data, as: UTF8.self).split(separator: "\n").count == 20000)
    }
}
