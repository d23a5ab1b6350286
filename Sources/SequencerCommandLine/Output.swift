import ArgumentParser
import Foundation
import SequencerRunner

/// Writes a line to standard error.
func printError(_ line: String) {
    write(line + "\n", to: STDERR_FILENO)
}

extension RunnerError {
    /// Says the error on standard error (when it has words); its exit status, to throw.
    func exit() -> ExitCode {
        if let message { printError(message) }
        return ExitCode(status)
    }

    /// The exit status that says it (see ``ExitStatus``).
    var status: Int32 {
        switch kind {
        case .invalid: ExitStatus.invalid
        case .failed: ExitStatus.failed
        case .interrupted: ExitStatus.interrupted
        }
    }
}

/// `body`'s value; a ``RunnerError`` is said on standard error (when it has words) and
/// becomes its exit status.
func exitingOnRunnerError<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as RunnerError {
        throw error.exit()
    }
}

/// `body`'s value; a ``RunnerError`` is said on standard error and becomes its exit status.
func exitingOnRunnerError<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as RunnerError {
        throw error.exit()
    }
}
