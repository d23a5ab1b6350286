/// Durations as a workflow file writes them: a number and a unit, repeated, with no spaces:
/// `10s`, `500ms`, `1.5s`, `1h30m`, `2m`, `250us`, `0s`. Units: `ns`, `us` (or `µs`), `ms`,
/// `s`, `m`, `h`.
enum DurationSyntax {
    /// A reason a duration is not valid, and the offset (in Unicode scalars) it is about.
    struct Problem: Error, Equatable {
        var offset: Int
        var message: String
    }

    static let units: [(name: String, nanoseconds: Double)] = [
        ("ns", 1), ("us", 1e3), ("\u{B5}s", 1e3), ("\u{3BC}s", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9),
    ]

    /// Units people write that mean one of ours.
    private static let unitSpellings: [String: String] = [
        "sec": "s", "secs": "s", "second": "s", "seconds": "s",
        "min": "m", "mins": "m", "minute": "m", "minutes": "m",
        "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
        "msec": "ms", "msecs": "ms", "millisecond": "ms", "milliseconds": "ms",
        "usec": "us", "microsecond": "us", "microseconds": "us",
        "nsec": "ns", "nanosecond": "ns", "nanoseconds": "ns",
    ]

    private static let unitList = "ns, us, ms, s, m or h"

    /// - Throws: ``Problem`` with the offset of the first character that is wrong.
    static func parse(_ text: String) throws(Problem) -> Duration {
        let characters = Array(text.unicodeScalars)
        guard !characters.isEmpty else {
            throw Problem(offset: 0, message: "empty duration; write a number and a unit, like 10s")
        }
        func isDigit(_ index: Int) -> Bool { ("0"..."9").contains(characters[index]) || characters[index] == "." }
        func isLetter(_ index: Int) -> Bool { characters[index].properties.isAlphabetic }
        var index = 0
        var nanoseconds = 0.0
        while index < characters.count {
            let numberStart = index
            if characters[index] == "-" {
                throw Problem(offset: index, message: "a duration cannot be negative")
            }
            if characters[index].properties.isWhitespace {
                throw spaces(in: characters, at: index)
            }
            while index < characters.count, isDigit(index) { index += 1 }
            let number = String(String.UnicodeScalarView(characters[numberStart..<index]))
            guard index > numberStart else {
                throw Problem(
                    offset: numberStart,
                    message: "expected a number at '\(characters[numberStart])'; write durations like 10s, 500ms or 1h30m")
            }
            guard let value = Double(number) else {
                throw Problem(offset: numberStart, message: "'\(number)' is not a number")
            }
            let unitStart = index
            while index < characters.count, isLetter(index) { index += 1 }
            let unit = String(String.UnicodeScalarView(characters[unitStart..<index]))
            if unit.isEmpty {
                if index == characters.count {
                    throw Problem(
                        offset: numberStart,
                        message: "'\(number)' has no unit; write \(number)s, \(number)m or another unit (\(unitList))")
                }
                if characters[index].properties.isWhitespace {
                    throw spaces(in: characters, at: index)
                }
                throw Problem(
                    offset: index,
                    message: "expected a unit (\(unitList)) after \(number), found '\(characters[index])'")
            }
            guard let scale = units.first(where: { $0.name == unit })?.nanoseconds else {
                let meant = unitSpellings[unit.lowercased()] ?? suggestion(for: unit, among: units.map(\.name))
                throw Problem(
                    offset: unitStart,
                    message: "unknown unit '\(unit)'" + (meant.map { "; did you mean '\($0)'?" } ?? "")
                        + " (units: \(unitList))")
            }
            nanoseconds += value * scale
        }
        guard nanoseconds < 1e18 else {
            throw Problem(offset: 0, message: "duration too long (the most is about 31 years)")
        }
        return .nanoseconds(Int64(nanoseconds.rounded()))
    }

    private static func spaces(in characters: [Unicode.Scalar], at index: Int) -> Problem {
        let joined = String(String.UnicodeScalarView(characters.filter { !$0.properties.isWhitespace }))
        return Problem(offset: index, message: "a duration has no spaces; write '\(joined)'")
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
