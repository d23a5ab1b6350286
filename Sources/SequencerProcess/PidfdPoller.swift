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
/// Only the low 32 bits of the data are used: a pidfd.
#if arch(x86_64)
struct EpollEvent {
    var events: UInt32
    var dataLow: UInt32
    var dataHigh: UInt32
    static let size = 12
    init(events: UInt32, fd: Int32) {
        self.events = events
        dataLow = UInt32(bitPattern: fd)
        dataHigh = 0
    }
    var fd: Int32 { Int32(bitPattern: dataLow) }
}
#else
struct EpollEvent {
    var events: UInt32
    var data: UInt64
    static let size = 16
    init(events: UInt32, fd: Int32) {
        self.events = events
        data = UInt64(UInt32(bitPattern: fd))
    }
    var fd: Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: data)) }
}
#endif

/// One thread that waits, in `epoll_wait`, on a pidfd per running child, and calls each child's
/// callback when its pidfd becomes readable (the child has exited; it is not reaped).
///
/// Adding a pidfd is an `epoll_ctl` from the caller's thread, which does not wake the poller:
/// the poller wakes once per exit (several exits at once: once). One instance serves the whole
/// program; its thread starts with the first watch and then stays.
final class PidfdPoller: Sendable {
    /// The program's poller, or `nil` if epoll is not available.
    static let shared: PidfdPoller? = PidfdPoller()

    /// `EPOLL_CLOEXEC`, `EPOLL_CTL_ADD` and `EPOLLIN`: the same on every Linux architecture.
    private static let closeOnExec: Int32 = O_CLOEXEC
    private static let add: Int32 = 1
    private static let readable: UInt32 = 1

    private let epoll: Int32
    private let epollCtl: GNUFunctions.EpollCtl
    private let epollWait: GNUFunctions.EpollWait
    /// The callback of each pidfd being watched.
    private let callbacks = Locked<[Int32: @Sendable () -> Void]>([:])

    private init?() {
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
        Thread.detachNewThread { [self] in loop() }
    }

    /// Calls `onExit` on the poller's thread once `pidfd` is readable, then closes `pidfd`.
    ///
    /// - Parameters:
    ///   - pidfd: A pidfd of a child; the poller owns it if this returns `true`.
    ///   - onExit: Called once, after the child has exited.
    /// - Returns: `false` if the pidfd could not be added (the caller keeps it and must wait another way).
    func watch(_ pidfd: Int32, onExit: @escaping @Sendable () -> Void) -> Bool {
        // Before adding: a child that has already exited is reported as soon as it is added.
        callbacks.withLock { $0[pidfd] = onExit }
        var event = EpollEvent(events: Self.readable, fd: pidfd)
        guard epollCtl(epoll, Self.add, pidfd, &event) == 0 else {
            callbacks.withLock { $0[pidfd] = nil }
            return false
        }
        return true
    }

    private func loop() {
        let capacity = 64
        let events = UnsafeMutablePointer<EpollEvent>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while true {
            let count = epollWait(epoll, events, Int32(capacity), -1)
            guard count > 0 else { continue }  // EINTR
            for index in 0..<Int(count) {
                let pidfd = events[index].fd
                // Removed before closing: once closed, its number can come back for another child.
                guard let onExit = callbacks.withLock({ $0.removeValue(forKey: pidfd) }) else { continue }
                _ = close(pidfd)  // also takes it out of the epoll set
                onExit()
            }
        }
    }
}
#endif
