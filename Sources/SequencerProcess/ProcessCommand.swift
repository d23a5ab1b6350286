/// A program to run: argv, environment and working directory.
///
/// ```swift
/// let command = ProcessCommand(
///     arguments: ["swift", "build"], environment: ["PATH": "/usr/bin:/bin"], directory: "/src/app")
/// ```
public struct ProcessCommand: Sendable, Hashable {
    /// The program and its arguments. `arguments[0]` is a path when it contains a `/`
    /// (a relative one is taken from ``directory``), else a name looked up on the `PATH`
    /// of ``environment`` (not this process's `PATH`).
    public var arguments: [String]
    /// The child's whole environment: nothing of this process's environment is added.
    public var environment: [String: String]
    /// The child's working directory; a relative one is taken from this process's working directory.
    public var directory: String
    /// Whether the command, with every process it starts in its process group, is killed
    /// (SIGKILL) when this process ends, however it ends (`kill -9` too), so that none of it runs
    /// on unwatched. On Linux only (elsewhere it has no effect): the command then runs under a
    /// small supervisor process, its group's leader, which relays its exit and ends the group
    /// once this process is gone. `false` by default.
    public var diesWithParent = false
    /// Whether the command has this process's terminal: its stdin, stdout and stderr, and its
    /// process group (so that Ctrl-C reaches it as it reaches this process), as ninja's
    /// `console` pool gives them. Its output file is then left empty. `false` by default.
    public var usesTerminal = false

    /// Creates a command.
    ///
    /// - Parameters:
    ///   - arguments: The program and its arguments; `arguments[0]` is the program.
    ///   - environment: The child's whole environment.
    ///   - directory: The child's working directory.
    public init(arguments: [String], environment: [String: String], directory: String) {
        self.arguments = arguments
        self.environment = environment
        self.directory = directory
    }

    /// This command with ``diesWithParent`` set.
    public func dyingWithParent() -> ProcessCommand {
        var command = self
        command.diesWithParent = true
        return command
    }
}
