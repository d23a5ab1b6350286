#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Sequencer

/// Ends a stress test that stops making progress: when ``progress()`` has not been called for
/// `stall`, it prints what it was told, every thread's stack (from `gdb`, where installed) and
/// this process's children, kills those children and theirs, then exits the process with
/// status 1.
///
/// A hung run cannot be failed from inside: the task that would record the failure is the one
/// that waits for ever. So the watchdog is a thread of its own, outside Swift's pool (which a hang
/// can starve), and it ends the whole test process loudly rather than letting CI's time run out.
///
/// ```swift
/// let watchdog = Watchdog("10,000 short processes", stall: .seconds(60))
/// defer { watchdog.stop() }
/// for _ in 0..<10_000 { try await runOne(); watchdog.progress() }
/// ```
public final class Watchdog: Sendable {
    private struct State {
        var steps = 0
        var stopped = false
        var note = ""
    }

    private let state = Locked(State())

    /// Starts watching.
    ///
    /// - Parameters:
    ///   - name: What is being watched, for the message.
    ///   - stall: How long without progress counts as a hang.
    public init(_ name: String, stall: Duration) {
        let seconds = max(1, Int(stall.components.seconds))
        Thread.detachNewThread { [state] in
            var seen = -1
            var still = 0
            while true {
                sleep(1)
                let (steps, stopped, note) = state.withLock { ($0.steps, $0.stopped, $0.note) }
                if stopped { return }
                if steps != seen {
                    seen = steps
                    still = 0
                    continue
                }
                still += 1
                guard still >= seconds else { continue }
                Self.fail("\(name): no progress for \(seconds) s after \(steps) steps. \(note)")
            }
        }
    }

    /// Says that the watched work moved on.
    public func progress() { state.withLock { $0.steps += 1 } }

    /// Says what to print with the stacks if the work hangs from now on (the state of the work).
    public func note(_ text: String) { state.withLock { $0.note = text } }

    /// Stops watching.
    public func stop() { state.withLock { $0.stopped = true } }

    private static func fail(_ message: String) -> Never {
        let pid = getpid()
        print("WATCHDOG: \(message)")
        print("WATCHDOG: the children of process \(pid):")
        run("/bin/sh", ["-c", "ps -o pid,stat,wchan:24,args --ppid \(pid) || ls /proc/\(pid)/task"])
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") {
            // Bounded: a gdb that cannot unwind a thread must not keep the process stopped.
            print("WATCHDOG: every thread's stack:")
            run("/bin/sh", ["-c", "timeout -s KILL 120 /usr/bin/gdb -p \(pid) -batch -nx -ex 'thread apply all bt'"])
        } else {
            print("WATCHDOG: no /usr/bin/gdb for the stacks; each thread's system call:")
            run("/bin/sh", ["-c", "for t in /proc/\(pid)/task/*; do echo \"$t $(cat $t/comm) $(cat $t/syscall)\"; done"])
        }
        killDescendants(of: pid)
        fflush(nil)
        exit(1)
    }

    /// Kills every process under this one, deepest first. The tests' children (workers,
    /// servers, shells) sit in process groups of their own and would outlive the test process,
    /// holding its output open: `swift test` then waits for ever (CI run 50).
    private static func killDescendants(of pid: pid_t) {
        let script = """
            me=$$
            tree() { for c in $(ps -o pid= --ppid "$1"); do [ "$c" = "$me" ] && continue; tree "$c"; kill -KILL "$c" 2>/dev/null; done; }
            tree \(pid)
            """
        print("WATCHDOG: killing the children of process \(pid)")
        run("/bin/sh", ["-c", script])
    }

    /// Runs a program to its end, its output to this process's.
    private static func run(_ path: String, _ arguments: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            print("WATCHDOG: cannot run \(path): \(error)")
        }
    }
}
