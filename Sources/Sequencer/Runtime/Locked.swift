#if SEQUENCER_PTHREAD_LOCK
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#else
import Synchronization
#endif

/// A value guarded by a lock: `Synchronization.Mutex`, or, in builds with
/// `-D SEQUENCER_PTHREAD_LOCK`, a pthread mutex.
///
/// ThreadSanitizer on Linux cannot see `Mutex`'s lock (its futex and atomics live in the
/// uninstrumented standard library), so it reports every access to guarded state as a race.
/// It does see pthread mutexes: the sanitizer run builds with the flag, and then its reports
/// are real. Every other build uses `Mutex`.
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
package final class Locked<Value: Sendable>: Sendable {
    #if SEQUENCER_PTHREAD_LOCK
    // The mutex itself is thread-safe: it is only used through pthread_mutex_lock/unlock.
    private nonisolated(unsafe) let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Only read or written between pthread_mutex_lock and pthread_mutex_unlock below.
    private nonisolated(unsafe) var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
    #else
    private let mutex: Mutex<Value>

    package init(_ value: Value) { mutex = Mutex(value) }

    package func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { value in try body(&value) }
    }
    #endif
}
