/// `NINJA_STATUS`: the prefix of each status line, with its placeholders (ninja 1.11):
/// `%s` started, `%t` total, `%r` running, `%u` not started, `%f` finished, `%o` finished per
/// second overall, `%c` per second lately, `%p` percentage finished, `%e` seconds elapsed,
/// `%%` a percent sign.
struct StatusFormat: Sendable {
    enum Piece: Sendable, Equatable {
        case text(String)
        case started, total, running, unstarted, finished, overallRate, currentRate, percentage, elapsed
    }

    let pieces: [Piece]
    static let standard = "[%f/%t] "

    struct UnknownPlaceholder: Error, Equatable {
        let placeholder: Character
        var message: String { "unknown placeholder '%\(placeholder)' in $NINJA_STATUS" }
    }

    init(_ format: String) throws(UnknownPlaceholder) {
        var pieces: [Piece] = []
        var text = ""
        var iterator = format.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else {
                text.append(character)
                continue
            }
            let next = iterator.next()
            if next == "%" {
                text.append("%")
                continue
            }
            if !text.isEmpty { pieces.append(.text(text)) }
            text = ""
            switch next {
            case "s": pieces.append(.started)
            case "t": pieces.append(.total)
            case "r": pieces.append(.running)
            case "u": pieces.append(.unstarted)
            case "f": pieces.append(.finished)
            case "o": pieces.append(.overallRate)
            case "c": pieces.append(.currentRate)
            case "p": pieces.append(.percentage)
            case "e": pieces.append(.elapsed)
            default: throw UnknownPlaceholder(placeholder: next ?? " ")
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    struct Counts {
        var started = 0, finished = 0, total = 0, running = 0
        /// Milliseconds since the build started.
        var elapsed: Int64 = 0
        /// ninja's rate over the last `-j` edges, as `%c` shows it.
        var currentRate: Double?
    }

    func render(_ counts: Counts) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let text): out += text
            case .started: out += String(counts.started)
            case .total: out += String(counts.total)
            case .running: out += String(counts.running)
            case .unstarted: out += String(counts.total - counts.started)
            case .finished: out += String(counts.finished)
            case .overallRate:
                out += Self.rate(counts.elapsed > 0 ? Double(counts.finished) / (Double(counts.elapsed) / 1000) : nil)
            case .currentRate: out += Self.rate(counts.currentRate)
            case .percentage:
                let percent = counts.total > 0 ? 100 * counts.finished / counts.total : 0
                let text = String(percent)
                out += String(repeating: " ", count: max(0, 3 - text.count)) + text + "%"
            case .elapsed: out += Self.fixed(Double(counts.elapsed) / 1000, decimals: 3)
            }
        }
        return out
    }

    /// ninja prints `?` for a rate it cannot know yet.
    static func rate(_ value: Double?) -> String {
        guard let value, value.isFinite, value >= 0 else { return "?" }
        return fixed(value, decimals: 1)
    }

    static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((value * scale).rounded())
        let whole = scaled / Int64(scale)
        let fraction = String(scaled % Int64(scale))
        return "\(whole)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}
