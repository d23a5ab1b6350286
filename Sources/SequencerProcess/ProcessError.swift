/// Why a process could not be started (or, rarely, not waited for).
///
/// ```swift
/// do { _ = try await runner.run(command, outputPath: "log") } catch let error as ProcessError {
///     print(error)   // cannot run 'swfit': No such file or directory
/// }
/// ```
public struct ProcessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The code's name, such as `cannotRun`.
        public var description: String { name }

        /// The command has no arguments, or an argument or environment entry the system
        /// cannot pass (a NUL byte, or a `=` or empty name in an environment variable's name).
        public static let invalidCommand = Code(name: "invalidCommand")
        /// The program was not found, or the system refused to start it (not executable,
        /// not a program, too many processes).
        public static let cannotRun = Code(name: "cannotRun")
        /// The working directory does not exist or is not a directory.
        public static let badDirectory = Code(name: "badDirectory")
        /// The output file could not be created or opened for writing.
        public static let cannotOpenOutput = Code(name: "cannotOpenOutput")
        /// The process started, but its exit could not be collected (something else in this
        /// program reaped it, for example with `SIGCHLD` ignored).
        public static let waitFailed = Code(name: "waitFailed")
    }

    /// What kind of problem this is.
    public let code: Code
    /// A sentence naming the program, directory or file involved and the system's reason.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of problem this is.
    ///   - message: A sentence naming what is involved.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
