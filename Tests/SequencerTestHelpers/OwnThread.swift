import Foundation

/// Runs `work`, which blocks (a read, a wait for a process, SQLite waiting for its lock), on a
/// thread of its own, and returns its result.
///
/// Never on Dispatch's shared threads: on Linux, Swift's tasks run on those same threads, and
/// Dispatch adds threads for blocked ones only up to twice the processor count. On a 2-core
/// machine, four blocking calls parked there stall every task of the process, including the ones
/// that would unblock them (CI run 55: three HTTP reads and a process wait held all four).
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
