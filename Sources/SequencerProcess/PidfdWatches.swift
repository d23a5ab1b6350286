#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The children a ``PidfdPoller`` watches, each under a token of its own: a state machine with no
/// system calls, which the poller calls under its lock.
///
/// Why tokens and not descriptor numbers: an epoll registration belongs to an open file
/// description, which outlives its descriptor when a child forked meanwhile holds a copy (until
/// that child's `exec` closes it), and the number of a closed descriptor is given to the next
/// `open` at once. An event that names a number can therefore be about an earlier child than the
/// one the number now belongs to. A token is never reused, so an event names exactly one watch,
/// and an event for a watch that has ended names none.
struct PidfdWatches: Sendable {
    /// One watched child.
    struct Watch: Sendable {
        /// Owned by the poller from the moment the watch is added: closed by it alone.
        let pidfd: Int32
        /// The child, unreaped while it is watched, so that its pid cannot be reused.
        let pid: pid_t
        /// Called once, after the child has exited.
        let onExit: @Sendable () -> Void
    }

    private var nextToken: UInt64 = 1
    private var watches: [UInt64: Watch] = [:]

    /// How many children are being watched.
    var count: Int { watches.count }

    /// Starts watching a child.
    ///
    /// - Returns: The token that its epoll registration carries as its data.
    mutating func add(_ watch: Watch) -> UInt64 {
        let token = nextToken
        nextToken += 1
        watches[token] = watch
        return token
    }

    /// Ends the watch of `token` and returns it, or `nil` if it has ended already (the child was
    /// reported by the other way first, or its registration failed).
    mutating func take(_ token: UInt64) -> Watch? {
        watches.removeValue(forKey: token)
    }

    /// The tokens and pids of the children being watched, for a sweep that asks the system directly.
    var watched: [(token: UInt64, pid: pid_t)] {
        watches.map { (token: $0.key, pid: $0.value.pid) }
    }
}
