#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything `posix_spawn` needs for one command, checked and converted up front so that
/// the errors name what is wrong: the program, the directory or the output file.
///
/// Owns an open descriptor and C memory: call ``release()`` exactly once.
struct SpawnPlan {
    /// `arguments[0]` as given, for messages.
    let name: String
    /// The file to execute, absolute.
    let program: String
    /// The working directory, absolute.
    let directory: String
    /// The output file, open for writing, close-on-exec, above 2.
    let output: Int32
    let argv: CStringArray
    let envp: CStringArray
    /// Run under a supervisor that kills its group when this process ends (``ProcessCommand/diesWithParent``).
    let supervised: Bool
    /// Inherit this process's descriptors 0 to 2 and process group (``ProcessCommand/usesTerminal``).
    let usesTerminal: Bool

    /// Checks `command` and opens the output file (creating or truncating it, mode 0644 less the umask).
    ///
    /// - Parameters:
    ///   - command: What to run.
    ///   - outputPath: The file for stdout and stderr; relative to this process's working directory.
    /// - Throws: `ProcessError`: `invalidCommand`, `badDirectory`, `cannotRun` (a name not on `PATH`)
    ///   or `cannotOpenOutput`, in that order of checking.
    init(_ command: ProcessCommand, outputPath: String) throws(ProcessError) {
        try Self.validate(command)
        let name = command.arguments[0]
        let directory = try Self.checkDirectory(command.directory)
        program = try ProgramLookup.resolve(name, path: command.environment["PATH"], directory: directory)
        output = try Self.openOutput(outputPath)
        self.name = name
        self.directory = directory
        argv = CStringArray(command.arguments)
        envp = CStringArray(environment: command.environment)
        supervised = command.diesWithParent && !command.usesTerminal
        usesTerminal = command.usesTerminal
    }

    /// Closes the output file (the child has its own copies) and frees the C strings.
    func release() {
        _ = close(output)
        argv.deallocate()
        envp.deallocate()
    }

    private static func validate(_ command: ProcessCommand) throws(ProcessError) {
        guard !command.arguments.isEmpty else {
            throw ProcessError(code: .invalidCommand, message: "the command has no arguments, so no program to run")
        }
        for (index, argument) in command.arguments.enumerated() where argument.utf8.contains(0) {
            throw ProcessError(code: .invalidCommand, message: "argument \(index) of '\(command.arguments[0])' contains a NUL byte")
        }
        for (name, value) in command.environment {
            if name.isEmpty || name.utf8.contains(UInt8(ascii: "=")) || name.utf8.contains(0) || value.utf8.contains(0) {
                throw ProcessError(
                    code: .invalidCommand,
                    message: "environment variable '\(name)' cannot be passed: its name is empty or has a '=' or a NUL byte, or its value has a NUL byte")
            }
        }
        if command.directory.utf8.contains(0) {
            throw ProcessError(code: .badDirectory, message: "working directory '\(command.directory)' contains a NUL byte")
        }
    }

    /// The directory made absolute, after checking that it is one.
    private static func checkDirectory(_ directory: String) throws(ProcessError) -> String {
        var info = stat()
        guard stat(directory, &info) == 0 else {
            let reason = errno
            let message = reason == ENOENT
                ? "working directory '\(directory)' does not exist"
                : "working directory '\(directory)' cannot be used: \(systemMessage(reason))"
            throw ProcessError(code: .badDirectory, message: message)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw ProcessError(code: .badDirectory, message: "working directory '\(directory)' is not a directory")
        }
        if directory.hasPrefix("/") { return directory }
        guard let current = getcwd(nil, 0) else {
            throw ProcessError(code: .badDirectory, message: "working directory '\(directory)' is relative, and this process's own cannot be read: \(systemMessage(errno))")
        }
        defer { free(current) }
        return ProgramLookup.absolute(directory, in: String(cString: current))
    }

    private static func openOutput(_ path: String) throws(ProcessError) -> Int32 {
        guard !path.utf8.contains(0) else {
            throw ProcessError(code: .cannotOpenOutput, message: "output file '\(path)' contains a NUL byte")
        }
        var fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd >= 0 && fd <= 2 {
            // This process has closed a standard descriptor; keep ours clear of 0, 1 and 2,
            // which the file actions below overwrite in the child.
            let moved = fcntl(fd, F_DUPFD_CLOEXEC, 3)
            _ = close(fd)
            fd = moved
        }
        guard fd >= 0 else {
            throw ProcessError(code: .cannotOpenOutput, message: "cannot open output file '\(path)': \(systemMessage(errno))")
        }
        return fd
    }
}
