internal import Sequencer

/// The build's terminal output, as ninja prints it: a status line per edge (`[3/10] CC a.o`),
/// `FAILED:` with the command and its output, the `console` pool's edges given the terminal.
/// Called from the edges' tasks at once: every method takes a lock.
public final class BuildStatus: Sendable {
    public enum Verbosity: Sendable { case normal, verbose, quiet, noStatusUpdate }

    private struct State {
        var printer: LinePrinter
        var counts = StatusFormat.Counts()
        var rate: SlidingRate
    }

    private let state: Locked<State>
    private let format: StatusFormat
    private let verbosity: Verbosity
    private let start = ContinuousClock.now

    init(printer: LinePrinter, format: StatusFormat, verbosity: Verbosity, parallelism: Int) {
        var printer = printer
        if verbosity != .normal { printer = LinePrinter(isSmartTerminal: false, supportsColor: printer.supportsColor, write: printer.write, width: printer.width) }
        state = Locked(State(printer: printer, rate: SlidingRate(window: max(1, min(parallelism, 1_000)))))
        self.format = format
        self.verbosity = verbosity
    }

    var isSmartTerminal: Bool { state.withLock { $0.printer.isSmartTerminal } }

    /// Milliseconds since the build started.
    var elapsed: Int64 {
        let duration = ContinuousClock.now - start
        return duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// How many edges will run: said at the start, and again when an edge turns out to be up
    /// to date after all.
    public func planHasTotal(_ total: Int) {
        state.withLock { $0.counts.total = total }
    }

    /// Edges finished so far (by earlier rounds too).
    var finishedCount: Int { state.withLock { $0.counts.finished } }

    /// One fewer edge to run (it was up to date once its inputs were built).
    public func oneFewer() {
        state.withLock { $0.counts.total -= 1 }
    }

    public func edgeStarted(description: String, command: String, console: Bool) {
        let now = elapsed
        state.withLock { state in
            state.counts.started += 1
            state.counts.running += 1
            state.counts.elapsed = now
            if console || state.printer.isSmartTerminal { printStatus(&state, description: description, command: command) }
            if console { state.printer.setConsoleLocked(true) }
        }
    }

    public func edgeFinished(description: String, command: String, outputs: [String], success: Bool, output: [UInt8], console: Bool) {
        let now = elapsed
        state.withLock { state in
            state.counts.elapsed = now
            state.counts.finished += 1
            state.rate.add(finished: state.counts.finished, at: now)
            state.counts.currentRate = state.rate.rate
            if console { state.printer.setConsoleLocked(false) }
            if verbosity == .quiet { return }
            if !console { printStatus(&state, description: description, command: command) }
            state.counts.running -= 1
            if !success {
                let list = outputs.map { $0 + " " }.joined()
                let failed = state.printer.supportsColor ? "\u{1B}[31mFAILED: \u{1B}[0m" : "FAILED: "
                state.printer.printOnNewLine(Array((failed + list + "\n").utf8))
                state.printer.printOnNewLine(Array((command + "\n").utf8))
            }
            if !output.isEmpty {
                state.printer.printOnNewLine(state.printer.supportsColor ? output : Self.strippingEscapes(output))
            }
        }
    }

    public func buildFinished() {
        state.withLock { state in
            state.printer.setConsoleLocked(false)
            state.printer.printOnNewLine([])
        }
    }

    /// Output of ours, such as `-d explain` lines, on a line of its own.
    func printOnNewLine(_ text: String) {
        state.withLock { $0.printer.printOnNewLine(Array(text.utf8)) }
    }

    private func printStatus(_ state: inout State, description: String, command: String) {
        guard verbosity != .quiet, verbosity != .noStatusUpdate else { return }
        let full = verbosity == .verbose
        let text = description.isEmpty || full ? command : description
        state.printer.print(format.render(state.counts) + text, kind: full ? .full : .elide)
    }

    /// The bytes without ANSI escape sequences (`ESC [ … letter`), as ninja prints a command's
    /// output when the terminal has no colours.
    static func strippingEscapes(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(0x1B) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1B, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "[") {
                index += 2
                while index < bytes.count, !Self.isLetter(bytes[index]) { index += 1 }
                index += 1
                continue
            }
            out.append(byte)
            index += 1
        }
        return out
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}

/// Edges finished per second over the last few (ninja's `%c`).
struct SlidingRate {
    let window: Int
    private var times: [Int64] = []
    private(set) var rate: Double?

    init(window: Int) { self.window = window }

    mutating func add(finished: Int, at milliseconds: Int64) {
        times.append(milliseconds)
        if times.count > window { times.removeFirst(times.count - window) }
        if let first = times.first, times.count > 1, milliseconds > first {
            rate = Double(times.count) / (Double(milliseconds - first) / 1000)
        }
    }
}
