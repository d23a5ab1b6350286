#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Whether process `pid` has ended: `kill(pid, 0)` fails with ESRCH, or (Linux) the process is
/// a zombie.
///
/// A killed grandchild is reparented to PID 1, which in some containers never reaps it: then it
/// stays a zombie, dead but still answering `kill(pid, 0)`.
///
/// ```swift
/// #expect(await eventually { processHasEnded(grandchild) })
/// ```
public func processHasEnded(_ pid: Int32) -> Bool {
    if kill(pid, 0) != 0 && errno == ESRCH { return true }
    #if os(Linux)
    guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return true }
    // "pid (comm) S ...": the state follows the last ')'.
    let text = String(decoding: stat, as: UTF8.self)
    guard let close = text.lastIndex(of: ")") else { return false }
    let state = text[text.index(after: close)...].drop { $0 == " " }.first
    return state == "Z" || state == "X"
    #else
    return false
    #endif
}

/// Whether process `pid` is still running (a zombie counts as ended); see ``processHasEnded(_:)``.
public func processIsAlive(_ pid: Int32) -> Bool { !processHasEnded(pid) }
