import Foundation
import SequencerOutput

/// Writes all of `text` to a file descriptor, ignoring errors (a closed pipe must not stop a
/// run; SIGPIPE is ignored by the run command).
func write(_ text: String, to descriptor: Int32) {
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

/// Writes a line to standard error.
func printError(_ line: String) {
    write(line + "\n", to: STDERR_FILENO)
}

/// A duration the way progress lines show it: `5ms`, `0.4s`, `12s`, `2m05s`
/// (``durationText(seconds:)``, as the web page shows it too).
func seconds(_ duration: Duration) -> String {
    let (wholeSeconds, attoseconds) = duration.components
    return durationText(seconds: Double(wholeSeconds) + Double(attoseconds) / 1e18)
}

private let systemWrite: @Sendable (Int32, UnsafeRawPointer?, Int) -> Int = { write($0, $1, $2) }
