#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SequencerProcess

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
struct ProcessTestDirectory {
    /// The directory's path, without symbolic links (so that `pwd` prints it as is).
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("sequencer-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.resolvingSymlinksInPath().path
    }

    /// `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name`, with the given permissions.
    func write(_ name: String, _ text: String, permissions: Int = 0o644) throws {
        try text.write(toFile: file(name), atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: file(name))
    }

    /// Makes the directory `name`.
    func makeDirectory(_ name: String) throws {
        try FileManager.default.createDirectory(atPath: file(name), withIntermediateDirectories: true)
    }

    /// The text of `name`, or `nil` if there is no such file.
    func read(_ name: String) -> String? {
        FileManager.default.contents(atPath: file(name)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `name` exists.
    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A `PATH` for test commands.
let testPath = "/usr/bin:/bin"

/// Polls `condition` every 10 ms until it holds or `seconds` have passed.
///
/// - Returns: Whether it held.
func eventually(within seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Waits (up to 5 s) for the file `name` in `directory` to hold a full line, as written by `echo $x > name`.
///
/// - Returns: The line without its newline, or `nil` if it did not come.
func line(_ name: String, in directory: ProcessTestDirectory) async -> String? {
    var text: String?
    _ = await eventually {
        text = directory.read(name)
        return text?.hasSuffix("\n") == true
    }
    guard let text, text.hasSuffix("\n") else { return nil }
    return String(text.dropLast())
}

/// Whether process `pid` has ended: `kill(pid, 0)` fails with ESRCH, or (Linux) the process is a zombie.
///
/// A killed grandchild is reparented to PID 1, which in some containers never reaps it: then it
/// stays a zombie, dead but still answering `kill(pid, 0)`.
func hasEnded(_ pid: pid_t) -> Bool {
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
