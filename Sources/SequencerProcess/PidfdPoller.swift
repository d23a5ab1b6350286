#if os(Linux)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Sequencer

/// `struct epoll_event`, which `<sys/epoll.h>` (not in Swift's `Glibc` module) declares packed
/// on x86_64 (12 bytes: the data right after the events) and naturally aligned elsewhere (16 bytes).
/// The data is a watch's token (see ``PidfdWatches``), never a descriptor number.
#if arch(x86_64)
struct EpollEvent {
    var events: UInt32
    var dataLow: UInt32
    var dataHigh: UInt32
    static let size = 12
    init(events: UInt32, token: UInt64) {
        self.events = events
        dataLow = UInt32(truncatingIfNeeded: token)
        dataHigh = UInt32(truncatingIfNeeded: token >> 32)
    }
    var token: UInt64 { UInt64(dataHigh) << 32 | UInt64(dataLow) }
}
#else
struct EpollEvent {
    var events: UInt32
    var data: UInt64
    static let size = 16
    init(events: UInt32, token: UInt64) {
        self.events = events
        data = token
    }
    var token: UInt64 { data }
}
#endif

/// One thread that waits, in `epoll_wait`, on a pidfd per running child, and calls each child's
/// callback when its pidfd becomes readable (the child has exited; it is not reaped).
///
/// Adding a pidfd is an `epoll_ctl` from the caller's thread, which does not wake the poller:
/// the poller wakes once per exit (several exits at once: once). One instance serves the whole
/// program; its thread starts with the first watch and then stays.
///
/// Three rules keep an exit from being lost or given to the wrong child:
/// - a registration carries a token that is never reused (``PidfdWatches``), not the pidfd's number;
/// - a pidfd handed over is the poller's, and only the poller closes it, after `EPOLL_CTL_DEL`
///   (a bare `close` leaves the registration in the set while a child forked meanwhile holds a
///   copy of the descriptor);
/// - a registration is one-shot, so that a stale one can never report twice.
///
/// And, should an exit be missed anyway, a sweep asks the system about every watched child once
/// per `sweepInterval` (`waitid` with `WNOHANG | WNOWAIT`, which reaps nothing): a lost wake-up is
/// then a delay of at most two intervals, not a hang. ``sweptExits`` counts the exits only the
/// sweep found; it stays 0 unless something is wrong.
package final class PidfdPoller: Sendable {
    /// The program's poller, or `nil` if epoll is not available.
    package static let shared: PidfdPoller? = PidfdPoller()

    /// `EPOLL_CLOEXEC`, `EPOLL_CTL_ADD`, `EPOLL_CTL_DEL`, `EPOLLIN` and `EPOLLONESHOT`: the same
    /// on every Linux architecture.
    private static let closeOnExec: Int32 = O_CLOEXEC
    private static let add: Int32 = 1
    private static let delete: Int32 = 2
    private static let readable: UInt32 = 1
    private static let oneShot: UInt32 = 1 << 30

    private let epoll: Int32
    private let epollCtl: GNUFunctions.EpollCtl
    private let epollWait: GNUFunctions.EpollWait
    private let sweepMilliseconds: Int32
    private let watches = Locked(PidfdWatches())
    private let swept = Locked(0)

    /// Creates a poller with a thread of its own, or `nil` if epoll is not available.
    ///
    /// - Parameter sweepInterval: How often every watched child is asked about directly.
    package init?(sweepInterval: Duration = .seconds(1)) {
        guard MemoryLayout<EpollEvent>.stride == EpollEvent.size,
            let epollCreate1 = GNUFunctions.epollCreate1,
            let epollCtl = GNUFunctions.epollCtl,
            let epollWait = GNUFunctions.epollWait
        else { return nil }
        let epoll = epollCreate1(Self.closeOnExec)
        guard epoll >= 0 else { return nil }
        self.epoll = epoll
        self.epollCtl = epollCtl
        self.epollWait = epollWait
        let (seconds, attoseconds) = sweepInterval.components
        sweepMilliseconds = Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        Thread.detachNewThread { [self] in loop() }
    }

    /// Opens a pidfd of `pid` (close-on-exec), or returns `nil` if the system has none.
    package static func openPidfd(_ pid: Int32) -> Int32? {
        guard let pidfdOpen = GNUFunctions.pidfdOpen else { return nil }
        let pidfd = pidfdOpen(pid, 0)
        return pidfd >= 0 ? pidfd : nil
    }

    /// How many children are being watched.
    package var watchedCount: Int { watches.withLock { $0.count } }

    /// How many exits the sweep found that no epoll event had reported: 0 unless an event was lost.
    package var sweptExits: Int { swept.withLock { $0 } }

    /// Calls `onExit` on the poller's thread once the child has exited, and closes `pidfd` first.
    ///
    /// - Parameters:
    ///   - pidfd: A pidfd of `pid`. If this returns `true`, the poller owns it: the caller must
    ///     not close it, even after `onExit`.
    ///   - pid: The child, which nothing reaps before `onExit` is called.
    ///   - onExit: Called once, after the child has exited.
    /// - Returns: `false` if the pidfd could not be added: the caller keeps it (and closes it) and
    ///   must wait another way. `onExit` is then never called by the poller.
    package func watch(_ pidfd: Int32, pid: Int32, onExit: @escaping @Sendable () -> Void) -> Bool {
        // Before adding: a child that has already exited is reported as soon as it is added.
        let token = watches.withLock { $0.add(.init(pidfd: pidfd, pid: pid, onExit: onExit)) }
        var event = EpollEvent(events: Self.readable | Self.oneShot, token: token)
        guard epollCtl(epoll, Self.add, pidfd, &event) == 0 else {
            // Never registered, so no event can name the token: the watch is still here.
            _ = watches.withLock { $0.take(token) }
            return false
        }
        return true
    }

    private func loop() {
        let capacity = 64
        let events = UnsafeMutablePointer<EpollEvent>.allocate(capacity: capacity)
        defer { events.deallocate() }
        let interval = UInt64(sweepMilliseconds) * 1_000_000
        var lastSweep = DispatchTime.now().uptimeNanoseconds
        var suspects: Set<UInt64> = []
        while true {
            let count = epollWait(epoll, events, Int32(capacity), sweepMilliseconds)
            for index in 0..<max(0, Int(count)) {
                // A token whose watch has ended (found by the sweep) names nothing: skipped.
                if let watch = watches.withLock({ $0.take(events[index].token) }) { end(watch) }
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if now &- lastSweep >= interval {
                suspects = sweep(suspects)
                lastSweep = now
            }
        }
    }

    /// Asks the system about each watched child. A child found exited by two sweeps in a row has
    /// had a whole interval for its event to come (an exit just before a sweep has its event
    /// waiting for the next `epoll_wait`): its watch is ended here.
    ///
    /// - Parameter suspects: The watches whose children the previous sweep found exited.
    /// - Returns: The watches whose children this sweep found exited for the first time.
    private func sweep(_ suspects: Set<UInt64>) -> Set<UInt64> {
        var found: Set<UInt64> = []
        for (token, pid) in watches.withLock({ $0.watched }) where hasExited(pid) {
            guard suspects.contains(token) else {
                found.insert(token)
                continue
            }
            guard let watch = watches.withLock({ $0.take(token) }) else { continue }
            swept.withLock { $0 += 1 }
            end(watch)
        }
        return found
    }

    /// Whether `pid` has exited, without reaping it; also `true` if it is not ours to wait for any
    /// more (the exit callback then says why, rather than waiting for ever).
    private func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        // Linux fills in the answer only for a child that has exited, and zeroes it otherwise.
        return result == 0 ? info.si_signo == SIGCHLD : errno == ECHILD
    }

    /// Takes the pidfd out of the set, closes it, and calls the callback.
    private func end(_ watch: PidfdWatches.Watch) {
        _ = epollCtl(epoll, Self.delete, watch.pidfd, nil)
        _ = close(watch.pidfd)
        watch.onExit()
    }
}
#endif
