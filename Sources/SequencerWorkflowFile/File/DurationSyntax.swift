/// Durations as a workflow file writes them: a number and a unit, repeated, with no spaces:
/// `10s`, `500ms`, `1.5s`, `1h30m`, `2m`, `250us`, `0s`. Units: `ns`, `us` (or `µs`), `ms`,
/// `s`, `m`, `h`.
enum DurationSyntax {
    /// A reason a duration is not valid, and the character offset it is about.
    struct Problem: Error, Equatable {
        var offset: Int
        var message: String
    }

    static let units: [(name: String, nanoseconds: Double)] = [
        ("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9),
    ]

    /// - Throws: ``Problem`` with the offset of the first character that is wrong.
    static func parse(_ text: String) throws(Problem) -> Duration {
        let characters = Array(text)
        guard !characters.isEmpty else {
            throw Problem(offset: 0, message: "empty duration; write a number and a unit, like 10s")
        }
        var index = 0
        var nanoseconds = 0.0
        while index < characters.count {
            let numberStart = index
            if characters[index] == "-" {
                throw Problem(offset: index, message: "a duration cannot be negative")
            }
            while index < characters.count, characters[index].isASCII,
                characters[index].isNumber || characters[index] == "." {
                index += 1
            }
            guard index > numberStart, let value = Double(String(characters[numberStart..<index]))
            else {
                throw Problem(
                    offset: numberStart,
                    message: "expected a number at '\(characters[numberStart])'; write durations like 10s, 500ms or 1h30m")
            }
            let unitStart = index
            while index < characters.count, characters[index].isLetter { index += 1 }
            let unit = String(characters[unitStart..<index])
            if unit.isEmpty {
                let found = index < characters.count ? "'\(characters[index])'" : "nothing"
                throw Problem(
                    offset: index,
                    message: "expected a unit (ns, us, ms, s, m, h) after \(String(characters[numberStart..<index])), found \(found)")
            }
            guard let scale = units.first(where: { $0.name == unit })?.nanoseconds else {
                throw Problem(
                    offset: unitStart,
                    message: "unknown unit '\(unit)'; use ns, us, ms, s, m or h")
            }
            nanoseconds += value * scale
        }
        guard nanoseconds < 1e18 else {
            throw Problem(offset: 0, message: "duration too long")
        }
        return .nanoseconds(Int64(nanoseconds.rounded()))
    }
}

extension Duration {
    /// The duration the way a workflow file writes it, in its largest exact units: `1h30m`,
    /// `200ms`, `1.5s`.
    var workflowDescription: String {
        let (seconds, attoseconds) = components
        if attoseconds == 0, seconds >= 60 {
            var parts = ""
            var rest = seconds
            for (unit, size) in [("h", Int64(3600)), ("m", 60), ("s", 1)] where rest >= size {
                parts += "\(rest / size)\(unit)"
                rest %= size
            }
            return parts
        }
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        if nanoseconds >= 1e9 { return "\(trimmed(nanoseconds / 1e9))s" }
        if nanoseconds >= 1e6 { return "\(trimmed(nanoseconds / 1e6))ms" }
        if nanoseconds >= 1e3 { return "\(trimmed(nanoseconds / 1e3))us" }
        return "\(trimmed(nanoseconds))ns"
    }
}

private func trimmed(_ value: Double) -> String {
    value == value.rounded() ? String(Int64(value)) : String(value)
}

extension WorkflowFile {
    /// A duration written the way workflow files write them (`10s`, `500ms`, `1h30m`).
    ///
    /// - Throws: an error saying what is wrong, for example `unknown unit 'x'`.
    public static func duration(_ text: String) throws -> Duration {
        do {
            return try DurationSyntax.parse(text)
        } catch {
            throw DurationError(description: "bad duration '\(text)': \(error.message)")
        }
    }
}

/// Why a duration could not be read.
public struct DurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
}
