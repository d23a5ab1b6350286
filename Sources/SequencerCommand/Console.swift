import Foundation
import Sequencer

/// Where progress goes. On a terminal, permanent lines scroll above one status line that is
/// redrawn in place; otherwise (a pipe, a file, or `CI` set) only plain lines are written.
final class Console: Sendable {
    /// The file descriptor written to.
    let descriptor: Int32
    /// Whether the status line is drawn.
    let isLive: Bool
    private let status = Locked<String?>(nil)

    init(descriptor: Int32, isLive: Bool) {
        self.descriptor = descriptor
        self.isLive = isLive
    }

    /// Whether live output suits a descriptor: a terminal, not a dumb one, outside CI.
    static func isTerminal(_ descriptor: Int32) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        return isatty(descriptor) == 1 && environment["CI"] == nil && environment["TERM"] != "dumb"
    }

    /// Writes a permanent line (or several), above the status line.
    func line(_ text: String) {
        status.withLock { status in
            if isLive, let status {
                write("\r\u{1B}[K" + text + "\n" + fitted(status), to: descriptor)
            } else {
                write(text + "\n", to: descriptor)
            }
        }
    }

    /// Replaces the status line (live consoles only).
    func setStatus(_ text: String?) {
        guard isLive else { return }
        status.withLock { status in
            status = text
            write("\r\u{1B}[K" + (text.map(fitted) ?? ""), to: descriptor)
        }
    }

    /// The status cut to the terminal's width, so it never wraps (a wrapped line cannot be
    /// redrawn in place).
    private func fitted(_ text: String) -> String {
        var size = winsize()
        let width = ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        return text.count < width ? text : String(text.prefix(max(1, width - 2))) + "…"
    }
}
