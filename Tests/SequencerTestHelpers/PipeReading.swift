public import Foundation

/// Reads a child's output pipe to its end, but gives up `grace` after `hasEnded` turns true:
/// another process that inherited the pipe's write end (a long-lived helper spawned meanwhile)
/// would keep it from ever ending, and the test would hang with its child long gone.
/// - Returns: what was read, and whether the pipe was still held open when it gave up.
public func readToEnd(
    _ handle: FileHandle, hasEnded: @Sendable () -> Bool, grace: Duration = .seconds(10)
) -> (data: Data, heldOpen: Bool) {
    let descriptor = handle.fileDescriptor
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var endedAt: ContinuousClock.Instant?
    while true {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, 100)
        if ready > 0 {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
                continue
            }
            if count == 0 || errno != EINTR { return (data, false) }
            continue
        }
        if ready < 0, errno != EINTR { return (data, false) }
        if endedAt == nil, hasEnded() { endedAt = .now }
        if let endedAt, ContinuousClock.now - endedAt > grace { return (data, true) }
    }
}

/// Whether process `pid` has ended: gone, or a zombie not reaped yet (as `/proc` tells, which
/// Foundation's `Process.isRunning` may not yet know).
public func hasEnded(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
    return state == "Z" || state == "X"
}
