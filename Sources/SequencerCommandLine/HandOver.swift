import ArgumentParser
import Foundation
import SequencerProcess

/// A companion binary run in this process's place: `sequencer serve` and `sequencer cache serve`
/// start `sequencer-serve`, `--otel` starts `sequencer-otel`.
enum HandOver {
    /// Replaces this process with `name` (beside this binary or on the `PATH`) given
    /// `arguments`. Returns only when it cannot, having said why (`missing` when there is no such
    /// binary): with exit status 2 when the binary is missing, 1 when it would not start.
    static func exec(_ name: String, _ arguments: [String], missing: String) -> ExitCode {
        guard let binary = ProgramLookup.companion(name) else {
            printError(missing)
            return ExitCode(ExitStatus.invalid)
        }
        execv(binary, ([binary] + arguments).map { strdup($0) } + [nil])
        printError("error: cannot start \(binary): \(String(cString: strerror(errno)))")
        return ExitCode(ExitStatus.failed)
    }
}
