import Foundation
import Synchronization
import SequencerProcess
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Many short processes at a high width, round after round, as a build of thousands of small jobs
/// runs them: every exit is reported (a lost one hangs a run), and none only by the poller's
/// sweep (which would hide a lost event as a delay). A watchdog prints every thread's stack and
/// fails the process if the runs stop making progress.
///
/// `SEQUENCER_STRESS_ROUNDS` sets the number of rounds of 1,000 processes. Without it, one round
/// of 200 runs: 32 lanes that spawn back to back hold the threads of Swift's pool while each child
/// is created, and thousands of them starve every other test in the process for a minute or more
/// (on a 2-core machine, other suites' time limits ran out). CI runs the long form in a step of
/// its own, in a process of its own: `SEQUENCER_STRESS_ROUNDS=10 swift test --filter ProcessStressTests`.
@Suite struct ProcessStressTests {
    @Test("thousands of short processes, 32 at a time, are all reported by their exit events")
    func thousandsOfShortProcesses() async throws {
        let size = StressSize.current
        let rounds = size.rounds ?? 1
        let perRound = size.isLongForm ? 1_000 : 200
        let width = 32
        let directory = try TemporaryDirectory(prefix: "sequencer-stress")
        defer { directory.remove() }
        let runner = ProcessRunner()
        let command = ProcessCommand(arguments: ["/bin/true"], environment: ["PATH": testPath], directory: directory.path)
        let sweptBefore = sweptExits
        // With the other suites, a loaded machine can hold every thread of the pool for a
        // minute (CI run 48): StressSize allows for it.
        let watchdog = Watchdog("process stress", stall: size.stall)
        defer { watchdog.stop() }
        for round in 0..<rounds {
            let next = Counter()
            let failures = try await withThrowingTaskGroup(of: Int.self) { group in
                for lane in 0..<width {
                    group.addTask {
                        var failures = 0
                        while next.take() < perRound {
                            let exit = try await runner.run(command, outputPath: directory.file("out\(lane)"))
                            if exit != .exited(0) { failures += 1 }
                            watchdog.progress()
                        }
                        return failures
                    }
                }
                return try await group.reduce(0, +)
            }
            watchdog.note("round \(round + 1) of \(rounds); unfinished runs: \(runner.unfinishedCount)")
            #expect(failures == 0, "round \(round + 1): \(failures) processes did not exit 0")
            #expect(runner.unfinishedCount == 0)
        }
        #expect(sweptExits == sweptBefore, "exits found only by the sweep: an epoll event was lost")
        print("process stress: \(rounds * perRound) processes, \(width) at a time")
    }

    private var sweptExits: Int {
        #if os(Linux)
        PidfdPoller.shared?.sweptExits ?? 0
        #else
        0
        #endif
    }
}

/// Hands out 0, 1, 2, … to several tasks.
private final class Counter: Sendable {
    private let value = Atomic(0)
    func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
}
