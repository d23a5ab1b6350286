// Temporary: the process runner lands from its own branch; this file goes when it does.
public enum ProcessExit: Sendable, Hashable {
    case exited(Int32)
    case signaled(Int32)
    public var succeeded: Bool { self == .exited(0) }
}
public struct ProcessCommand: Sendable, Hashable {
    public var arguments: [String]
    public var environment: [String: String]
    public var directory: String
    public init(arguments: [String], environment: [String: String], directory: String) {
        self.arguments = arguments
        self.environment = environment
        self.directory = directory
    }
    public static func shell(_ script: String, environment: [String: String], directory: String) -> ProcessCommand {
        ProcessCommand(arguments: ["/bin/sh", "-c", script], environment: environment, directory: directory)
    }
}
public struct ProcessError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
public final class ProcessRunner: Sendable {
    public init(terminationGrace: Duration = .seconds(2)) {}
    public func run(_ command: ProcessCommand, outputPath: String) async throws -> ProcessExit {
        throw ProcessError(message: "stub")
    }
    public func signalAll(_ signal: Int32) {}
}
