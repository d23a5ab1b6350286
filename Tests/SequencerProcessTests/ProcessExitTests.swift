#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SequencerProcess
import SequencerTestHelpers
import SequencerTestSupport
import Testing

@Suite struct ProcessExitTests {
    @Test("descriptions", arguments: [
        (ProcessExit.exited(0), "exit code 0"),
        (.exited(3), "exit code 3"),
        (.signaled(SIGTERM), "killed by SIGTERM"),
        (.signaled(SIGKILL), "killed by SIGKILL"),
        (.signaled(SIGINT), "killed by SIGINT"),
        (.signaled(SIGSEGV), "killed by SIGSEGV"),
        (.signaled(60), "killed by signal 60"),
    ])
    func description(exit: ProcessExit, text: String) {
        #expect(exit.description == text)
    }

    @Test("only exit code 0 succeeds", arguments: [
        (ProcessExit.exited(0), true), (.exited(1), false), (.exited(255), false), (.signaled(SIGTERM), false),
    ])
    func succeeded(exit: ProcessExit, succeeded: Bool) {
        #expect(exit.succeeded == succeeded)
    }
}
