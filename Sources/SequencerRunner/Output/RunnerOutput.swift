import Foundation
package import Logging
import SequencerOutput

/// Where a runner's words go: progress (a ``Console``), diagnostics (warnings, and errors said
/// before a ``RunnerError`` that carries no message), results (a JSON document asked for), and
/// the log of the runner's own workings. The command line writes them to standard output and
/// standard error; a test keeps them.
package struct RunnerOutput: Sendable {
    package var progress: Console
    package var diagnostics: @Sendable (String) -> Void
    package var results: @Sendable (String) -> Void
    package var log: Logger

    package init(
        progress: Console, diagnostics: @escaping @Sendable (String) -> Void, results: @escaping @Sendable (String) -> Void, log: Logger
    ) {
        self.progress = progress
        self.diagnostics = diagnostics
        self.results = results
        self.log = log
    }

    /// A command's: progress on standard output (standard error when `json`, whose document
    /// has standard output), diagnostics on standard error.
    package static func standard(json: Bool, log: Logger) -> RunnerOutput {
        let descriptor = json ? STDERR_FILENO : STDOUT_FILENO
        return RunnerOutput(
            progress: Console(descriptor: descriptor, isLive: Console.isTerminal(descriptor)),
            diagnostics: { write($0 + "\n", to: STDERR_FILENO) },
            results: { write($0, to: STDOUT_FILENO) }, log: log)
    }
}

/// Writes all of `text` to a file descriptor, ignoring errors (a closed pipe must not stop a
/// run; SIGPIPE is ignored by the run command).
package func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = systemWrite(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

private let systemWrite: @Sendable (Int32, UnsafeRawPointer?, Int) -> Int = { write($0, $1, $2) }

/// A duration the way progress lines show it: `5ms`, `0.4s`, `12s`, `2m05s`
/// (``durationText(seconds:)``, as the web page shows it too).
package func seconds(_ duration: Duration) -> String {
    let (wholeSeconds, attoseconds) = duration.components
    return durationText(seconds: Double(wholeSeconds) + Double(attoseconds) / 1e18)
}

/// `path` made absolute against the working directory, and standardized (`..` resolved).
package func absolutePath(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.path
}
