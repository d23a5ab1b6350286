public import Foundation

/// Reads a child's output pipe to its end, but gives up `grace` after `hasEnded` turns true:
/// another process that inherited the pipe's write end (a long-lived helper spawned meanwhile)
/// would keep it from ever ending, and the test would hang with its child long gone.
/// - Returns: what was read, and whether the pipe was still held open when it gave up.
public func readToEnd(
    _ handle: FileHandle, hasEnded: @Sendable () -> Bool, grace: Duration = .seconds(30)
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

/// Whether process `pid` has ended and let go of its descriptors: gone, or a zombie not reaped
/// yet (as `/proc` tells, which Foundation's `Process.isRunning` may not yet know) whose files
/// are closed. A process whose main thread has exited while another is still in the kernel (an
/// `fsync` on a loaded disk) shows as a zombie but still holds its pipes: it has not ended.
public func hasEnded(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
    guard state == "Z" || state == "X" else { return false }
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    return descriptors.isEmpty
}

/// The processes other than this one that hold the pipe whose read end is `handle`, as
/// `PID (COMMAND LINE)`, for a test to say who kept a pipe open.
public func pipeHolders(_ handle: FileHandle) -> [String] {
    var status = stat()
    guard fstat(handle.fileDescriptor, &status) == 0 else { return [] }
    let name = "pipe:[\(status.st_ino)]"
    let me = String(getpid())
    let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return processes.filter { $0 != me && Int($0) != nil }.compactMap { pid in
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let holds = descriptors.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == name }
        guard holds else { return nil }
        let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")))
            .map { String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\0", with: " ") } ?? "?"
        return "\(pid) (\(command.trimmingCharacters(in: .whitespaces)))"
    }
}
