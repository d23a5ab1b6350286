import Foundation
import Sequencer

/// Where progress goes. On a terminal, permanent lines scroll above one status line that is
/// redrawn in place; otherwise (a pipe, a file, `CI` set, or a test's closure) only plain
/// lines are written.
package final class Console: Sendable {
    /// The file descriptor written to; nil for a console that hands its lines to a closure.
    package let descriptor: Int32?
    /// Whether the status line is drawn.
    package let isLive: Bool
    private let sink: @Sendable (String) -> Void
    private let status = Locked<String?>(nil)

    package init(descriptor: Int32, isLive: Bool) {
        self.descriptor = descriptor
        self.isLive = isLive
        sink = { write($0, to: descriptor) }
    }

    /// A console that hands each permanent line (or group of lines) to `lines`, without the
    /// final newline: for tests, and for a program that shows progress its own way.
    package init(lines: @escaping @Sendable (String) -> Void) {
        descriptor = nil
        isLive = false
        sink = { text in lines(text.hasSuffix("\n") ? String(text.dropLast()) : text) }
    }

    /// Whether live output suits a descriptor: a terminal, not a dumb one, outside CI.
    package static func isTerminal(_ descriptor: Int32) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        return isatty(descriptor) == 1 && environment["CI"] == nil && environment["TERM"] != "dumb"
    }

    /// Writes a permanent line (or several), above the status line.
    package func line(_ text: String) {
        status.withLock { status in
            if isLive, let status {
                sink("\r\u{1B}[K" + text + "\n" + fitted(status))
            } else {
                sink(text + "\n")
            }
        }
    }

    /// Replaces the status line (live consoles only).
    package func setStatus(_ text: String?) {
        guard isLive else { return }
        status.withLock { status in
            status = text
            sink("\r\u{1B}[K" + (text.map(fitted) ?? ""))
        }
    }

    /// The status cut to the terminal's width, so it never wraps (a wrapped line cannot be
    /// redrawn in place).
    private func fitted(_ text: String) -> String {
        var size = winsize()
        let width = descriptor.map { ioctl($0, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 } == true ? Int(size.ws_col) : 80
        return text.count < width ? text : String(text.prefix(max(1, width - 2))) + "…"
    }
}
