/// How a process ended: with an exit code, or killed by a signal.
///
/// ```swift
/// let exit = try await runner.run(command, outputPath: "build.log")
/// if !exit.succeeded { print("failed: \(exit)") }   // failed: exit code 3
/// ```
public enum ProcessExit: Sendable, Hashable, CustomStringConvertible {
    /// The process called `exit` with this code (0 to 255).
    case exited(Int32)
    /// The process was killed by this signal (`SIGTERM`, `SIGKILL`, ...).
    case signaled(Int32)

    /// Whether the process exited with code 0.
    public var succeeded: Bool { self == .exited(0) }

    /// `exit code 3`, or `killed by SIGTERM` (`killed by signal 42` for a signal without a name here).
    public var description: String {
        switch self {
        case .exited(let code): "exit code \(code)"
        case .signaled(let signal): "killed by \(SignalName.of(signal))"
        }
    }

    /// Decodes a status from `waitpid`, for a process that exited or was killed (not stopped).
    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }
}
