#if os(Linux)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
@testable import SequencerProcess
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The poller's rules, on real children: an event names one watch (a token, never a descriptor's
/// number), a registration ends with its watch, and the sweep finds what no event reported.
@Suite struct PidfdPollerTests {
    @Test("a registration left behind by a copy of an ended watch's pidfd reports nothing")
    func aStaleRegistrationReportsNothing() async throws {
        let poller = try #require(PidfdPoller(sweepInterval: .seconds(3600)))
        let first = try Child(["/bin/true"])
        let firstPidfd = try #require(PidfdPoller.openPidfd(first.pid))
        // A copy of the description, as a child forked at that moment holds one until its exec:
        // closing the poller's descriptor alone would leave the registration in the epoll set.
        let copy = dup(firstPidfd)
        defer { close(copy) }
        let firstEnded = Gate()
        #expect(poller.watch(firstPidfd, pid: first.pid) { firstEnded.open() })
        #expect(await eventually { firstEnded.isOpen })

        // The next pidfd opened takes the lowest free number: usually the one the poller closed.
        let sleeper = try Child(["/bin/sleep", "3600"])
        let sleeperPidfd = try #require(PidfdPoller.openPidfd(sleeper.pid))
        let sleeperEnded = Gate()
        #expect(poller.watch(sleeperPidfd, pid: sleeper.pid) { sleeperEnded.open() })
        // A third child's exit: once it is reported, the poller has waited since the sleeper came.
        let last = try Child(["/bin/true"])
        let lastEnded = Gate()
        #expect(poller.watch(try #require(PidfdPoller.openPidfd(last.pid)), pid: last.pid) { lastEnded.open() })
        #expect(await eventually { lastEnded.isOpen })

        #expect(!sleeperEnded.isOpen, "the sleeper's watch ended while it ran (pidfd \(sleeperPidfd), the first's was \(firstPidfd))")
        kill(sleeper.pid, SIGKILL)
        #expect(await eventually { sleeperEnded.isOpen })
        #expect(poller.watchedCount == 0)
        #expect(poller.sweptExits == 0)
        for child in [first, sleeper, last] { child.reap() }
    }

    @Test("an exit that no event reports is found by the sweep")
    func theSweepFindsAMissedExit() async throws {
        let poller = try #require(PidfdPoller(sweepInterval: .milliseconds(20)))
        let sleeper = try Child(["/bin/sleep", "3600"])
        let exiting = try Child(["/bin/true"])
        // The sleeper's pidfd under the exiting child's pid: a registration whose event never comes.
        let ended = Gate()
        #expect(poller.watch(try #require(PidfdPoller.openPidfd(sleeper.pid)), pid: exiting.pid) { ended.open() })
        #expect(await eventually { ended.isOpen })
        #expect(poller.sweptExits == 1)
        #expect(poller.watchedCount == 0)
        #expect(processIsAlive(sleeper.pid))
        kill(sleeper.pid, SIGKILL)
        for child in [sleeper, exiting] { child.reap() }
    }

    @Test("a child that has not exited is not ended by the sweep")
    func theSweepLeavesRunningChildren() async throws {
        let poller = try #require(PidfdPoller(sweepInterval: .milliseconds(10)))
        let sleeper = try Child(["/bin/sleep", "3600"])
        let ended = Gate()
        #expect(poller.watch(try #require(PidfdPoller.openPidfd(sleeper.pid)), pid: sleeper.pid) { ended.open() })
        // Several sweeps: a second poller's child, watched after, ends first.
        let other = try Child(["/bin/sleep", "0.2"])
        let otherEnded = Gate()
        let second = try #require(PidfdPoller(sweepInterval: .seconds(3600)))
        #expect(second.watch(try #require(PidfdPoller.openPidfd(other.pid)), pid: other.pid) { otherEnded.open() })
        #expect(await eventually { otherEnded.isOpen })
        #expect(!ended.isOpen)
        #expect(poller.watchedCount == 1)
        kill(sleeper.pid, SIGKILL)
        #expect(await eventually { ended.isOpen })
        #expect(poller.sweptExits == 0)
        for child in [sleeper, other] { child.reap() }
    }
}

/// The watches' bookkeeping as call sequences.
@Suite struct PidfdWatchesTests {
    func watch(_ pidfd: Int32, pid: pid_t = 100) -> PidfdWatches.Watch { .init(pidfd: pidfd, pid: pid, onExit: {}) }

    @Test func aTokenEndsItsWatchOnceAndIsNeverGivenAgain() {
        var watches = PidfdWatches()
        let first = watches.add(watch(15))
        #expect(watches.take(first)?.pidfd == 15)
        #expect(watches.take(first) == nil)
        // The same descriptor number again: a new token, and the old one still names nothing.
        let second = watches.add(watch(15))
        #expect(second != first)
        #expect(watches.take(first) == nil)
        #expect(watches.count == 1)
        #expect(watches.take(second)?.pidfd == 15)
        #expect(watches.count == 0)
    }

    @Test func theWatchedListsEveryChildStillWatched() {
        var watches = PidfdWatches()
        let tokens = (0..<5).map { watches.add(watch(Int32(20 + $0), pid: pid_t(200 + $0))) }
        _ = watches.take(tokens[1])
        _ = watches.take(tokens[3])
        let watched = watches.watched.sorted { $0.token < $1.token }
        #expect(watched.map(\.token) == [tokens[0], tokens[2], tokens[4]])
        #expect(watched.map(\.pid) == [200, 202, 204])
    }
}

/// A child spawned directly, which the test reaps itself.
struct Child {
    let pid: pid_t

    init(_ arguments: [String]) throws {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        closeInheritedDescriptors(&actions)
        let result = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        guard result == 0 else { throw ChildError(message: "cannot spawn \(arguments[0]): error \(result)") }
        self.pid = pid
    }

    func reap() {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}

struct ChildError: Error { let message: String }
#endif
