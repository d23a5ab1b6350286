#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension AttemptRecord {
    /// How the attempt ended, in words: `exit code 1`, `killed by SIGTERM`, or
    /// `could not start: <why>`.
    var exitSummary: String {
        switch exit {
        case .exited(let code): "exit code \(code)"
        case .signaled(let signal): "killed by \(signalName(signal))"
        case nil: "could not start" + (startError.map { ": \($0)" } ?? "")
        }
    }
}

/// `SIGTERM` for this platform's number of SIGTERM; `signal 42` for a number without a name here.
private func signalName(_ signal: Int32) -> String {
    let names: [(Int32, String)] = [
        (SIGHUP, "SIGHUP"), (SIGINT, "SIGINT"), (SIGQUIT, "SIGQUIT"), (SIGILL, "SIGILL"), (SIGTRAP, "SIGTRAP"),
        (SIGABRT, "SIGABRT"), (SIGBUS, "SIGBUS"), (SIGFPE, "SIGFPE"), (SIGKILL, "SIGKILL"), (SIGUSR1, "SIGUSR1"),
        (SIGSEGV, "SIGSEGV"), (SIGUSR2, "SIGUSR2"), (SIGPIPE, "SIGPIPE"), (SIGALRM, "SIGALRM"), (SIGTERM, "SIGTERM"),
        (SIGXCPU, "SIGXCPU"), (SIGXFSZ, "SIGXFSZ"),
    ]
    return names.first { $0.0 == signal }?.1 ?? "signal \(signal)"
}
