#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// How a ``ProcessRunner`` learns that a child has exited.
package enum ExitWaiting: Sendable, CaseIterable {
    /// Linux: one thread waits in `epoll_wait` on a pidfd per child (see ``PidfdPoller``). Elsewhere, or when
    /// pidfds are not available (Linux before 5.3, glibc before 2.36, a seccomp filter), `threads`.
    case automatic
    /// A thread per running child, blocked in `waitid` until that child exits.
    case threads

    /// Calls `onExit` once, on some other thread, after `pid` has exited. Does not reap it:
    /// `onExit` does, so that the pid stays reserved (and its process group's ID with it)
    /// until the runner has recorded the exit under its lock.
    ///
    /// - Parameters:
    ///   - pid: A child of this process that nothing else waits for.
    ///   - onExit: Called once `waitpid(pid)` would not block (or would fail).
    func watch(_ pid: pid_t, onExit: @escaping @Sendable () -> Void) {
        #if os(Linux)
        // A pidfd of a child that has already exited (a zombie) is readable at once.
        if self == .automatic, let poller = PidfdPoller.shared, let pidfd = PidfdPoller.openPidfd(pid) {
            // Handed over: the poller alone closes it. Not handed over: ours to close.
            if poller.watch(pidfd, pid: pid, onExit: onExit) { return }
            _ = close(pidfd)
        }
        #endif
        Thread.detachNewThread {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            onExit()
        }
    }
}
