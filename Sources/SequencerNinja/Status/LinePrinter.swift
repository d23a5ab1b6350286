#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ninja's way of writing to the terminal: on a smart terminal each status line overwrites
/// the last, shortened to the terminal's width; elsewhere each is a line of its own. While a
/// `console` pool edge has the terminal, the status line and the output of other edges are
/// held back, and printed when it ends.
struct LinePrinter: Sendable {
    enum LineKind { case elide, full }

    let isSmartTerminal: Bool
    let supportsColor: Bool
    private var haveBlankLine = true
    private var consoleLocked = false
    private var heldLine: (text: String, kind: LineKind)?
    private var heldOutput: [UInt8] = []
    /// Where the bytes go (stdout in a build; a buffer in tests).
    var write: @Sendable ([UInt8]) -> Void
    /// The terminal's width, when it has one.
    var width: @Sendable () -> Int?

    init(isSmartTerminal: Bool, supportsColor: Bool, write: @escaping @Sendable ([UInt8]) -> Void, width: @escaping @Sendable () -> Int?) {
        self.isSmartTerminal = isSmartTerminal
        self.supportsColor = supportsColor
        self.write = write
        self.width = width
    }

    /// ninja's terminal test: stdout is a terminal and `TERM` is set and not `dumb`; colours
    /// also with `CLICOLOR_FORCE` (other than `0`).
    static func standardOutput(environment: [String: String]) -> LinePrinter {
        let term = environment["TERM"]
        let smart = isatty(STDOUT_FILENO) == 1 && term != nil && term != "dumb"
        let force = environment["CLICOLOR_FORCE"].map { $0 != "0" } ?? false
        return LinePrinter(
            isSmartTerminal: smart, supportsColor: smart || force,
            write: { writeAll(STDOUT_FILENO, $0) },
            width: {
                var size = winsize()
                guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
                return Int(size.ws_col)
            })
    }

    /// A status line.
    mutating func print(_ text: String, kind: LineKind) {
        if consoleLocked {
            heldLine = (text, kind)
            return
        }
        if isSmartTerminal && kind == .elide {
            var line = text
            if let width = width() { line = Self.elideMiddle(line, width: width) }
            write(Array(("\r" + line + "\u{1B}[K").utf8))
            haveBlankLine = false
        } else {
            if isSmartTerminal { write(Array("\r".utf8)) }
            write(Array((text + "\n").utf8))
        }
    }

    /// Output that starts on a line of its own.
    mutating func printOnNewLine(_ bytes: [UInt8]) {
        if consoleLocked, let held = heldLine {
            heldOutput += Array((held.text + "\n").utf8)
            heldLine = nil
        }
        if !haveBlankLine { emit([UInt8(ascii: "\n")]) }
        if !bytes.isEmpty { emit(bytes) }
        haveBlankLine = bytes.isEmpty || bytes.last == UInt8(ascii: "\n")
    }

    mutating func setConsoleLocked(_ locked: Bool) {
        guard locked != consoleLocked else { return }
        if locked { printOnNewLine([]) }
        consoleLocked = locked
        if !locked {
            let output = heldOutput
            heldOutput = []
            printOnNewLine(output)
            if let held = heldLine {
                heldLine = nil
                print(held.text, kind: held.kind)
            }
        }
    }

    private mutating func emit(_ bytes: [UInt8]) {
        if consoleLocked { heldOutput += bytes } else { write(bytes) }
    }

    /// `text` cut in the middle to `width` characters, with `...` where it was cut.
    static func elideMiddle(_ text: String, width: Int) -> String {
        switch width {
        case ...0: return ""
        case 1...3: return String(repeating: ".", count: width)
        default: break
        }
        let bytes = Array(text.utf8)
        guard bytes.count > width else { return text }
        let keep = (width - 3) / 2
        return String(decoding: bytes[..<keep], as: UTF8.self) + "..." + String(decoding: bytes[(bytes.count - keep)...], as: UTF8.self)
    }
}
