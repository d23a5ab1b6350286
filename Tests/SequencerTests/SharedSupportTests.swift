import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The helpers the test targets share: temporary directories, `eventually`, process checks and
/// the call log.
@Suite(.suiteTimeLimit) struct SharedSupportTests {
    @Test func aTemporaryDirectoryIsRemovedWithItsLastReferenceUnlessToldToStay() throws {
        var directory: TemporaryDirectory? = try TemporaryDirectory(prefix: "sequencer-support")
        let path = try #require(directory?.path)
        try directory?.write("a/b.txt", "one\n", permissions: 0o600)
        #expect(directory?.read("a/b.txt") == "one\n" && directory?.exists("a/b.txt") == true)
        #expect(directory?.read("missing") == nil)
        directory = nil
        #expect(!FileManager.default.fileExists(atPath: path))

        var kept: TemporaryDirectory? = try TemporaryDirectory(prefix: "sequencer-support", removedAtEnd: false)
        let keptPath = try #require(kept?.path)
        kept = nil
        #expect(FileManager.default.fileExists(atPath: keptPath))
        try FileManager.default.removeItem(atPath: keptPath)
    }

    @Test func eventuallyReportsWhetherTheConditionCameToHold() async {
        var checks = 0
        #expect(await eventually { checks += 1; return checks == 3 })
        #expect(checks == 3)
        #expect(await eventually(within: .milliseconds(30)) { false } == false)
    }

    @Test func aReapedChildHasEndedAndThisProcessIsAlive() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 0"]
        try process.run()
        process.waitUntilExit()
        #expect(processHasEnded(process.processIdentifier))
        #expect(processIsAlive(ProcessInfo.processInfo.processIdentifier))
    }

    @Test func theCallLogCountsCallsAttemptsAndCancellationsPerJob() {
        let log = CallLog()
        log.called("a")
        log.called("a", attempt: 2)
        log.sawCancellation("b")
        #expect(log.calls("a") == 2 && log.attempts("a") == [1, 2] && log.calls("b") == 0)
        #expect(log.sawCancellation(of: "b") && !log.sawCancellation(of: "a"))
    }
}
