import Foundation

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

/// A duration the way progress lines show it: `0.4s`, `12s`, `2m05s`.
func seconds(_ duration: Duration) -> String {
    let (wholeSeconds, attoseconds) = duration.components
    let value = Double(wholeSeconds) + Double(attoseconds) / 1e18
    if value < 10 { return String(format: "%.1fs", value) }
    if value < 60 { return "\(Int(value.rounded()))s" }
    let total = Int(value.rounded())
    return total < 3600 ? String(format: "%dm%02ds", total / 60, total % 60)
        : String(format: "%dh%02dm", total / 3600, total % 3600 / 60)
}

private let systemWrite: @Sendable (Int32, UnsafeRawPointer?, Int) -> Int = { write($0, $1, $2) }
