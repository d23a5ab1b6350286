import Foundation

/// The stored form of inputs and outputs, `{"value":…}` (see ``Wrapped``), written and read by
/// hand for the common small types: an `Int`, a `Bool`, or a `String` with nothing to escape.
/// `JSONEncoder` and `JSONDecoder` cost more than a small job's body; the bytes are the same
/// as theirs, so files written before read the same, and the other way round.
///
/// Anything else, or any text not in exactly this form (spaces, escapes, a number out of
/// range), goes through `JSONEncoder`/`JSONDecoder` as before, errors included.
enum SmallJSON {
    /// Whether values of `type` may take the hand-written path.
    static func handles(_ type: Any.Type) -> Bool {
        type == Int.self || type == Bool.self || type == String.self
    }

    private static let prefix = Array(#"{"value":"#.utf8)

    /// `{"value":…}` as `JSONEncoder` writes it, for a value of a type ``handles(_:)`` takes;
    /// nil for another type, or a string with a character `JSONEncoder` escapes.
    static func encode(_ value: Any) -> Data? {
        let inner: String
        switch value {
        case let number as Int:
            inner = String(number)
        case let flag as Bool:
            inner = flag ? "true" : "false"
        case let text as String:
            guard text.utf8.allSatisfy({ !needsEscape($0) }) else { return nil }
            inner = "\"" + text + "\""
        default:
            return nil
        }
        var data = Data(capacity: prefix.count + inner.utf8.count + 1)
        data.append(contentsOf: prefix)
        data.append(contentsOf: inner.utf8)
        data.append(UInt8(ascii: "}"))
        return data
    }

    /// The value in `{"value":…}`, for a type ``handles(_:)`` takes; nil for another type, or
    /// text in any other form (left to `JSONDecoder`).
    static func decode<Value>(_ type: Value.Type, from data: Data) -> Value? {
        guard data.count > prefix.count + 1, data.last == UInt8(ascii: "}"), data.starts(with: prefix) else { return nil }
        let inner = data[(data.startIndex + prefix.count)..<(data.endIndex - 1)]
        if type == Int.self { return int(inner) as? Value }
        if type == Bool.self { return bool(inner) as? Value }
        if type == String.self { return string(inner) as? Value }
        return nil
    }

    /// What `JSONEncoder` escapes in a string (with its default `outputFormatting`): quotes,
    /// backslashes, slashes and control characters.
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/")
    }

    /// A JSON integer: an optional minus, then `0` or digits not starting with `0`; nil when it
    /// does not fit an `Int`.
    static func int(_ bytes: Data.SubSequence) -> Int? {
        var rest = bytes[...]
        let negative = rest.first == UInt8(ascii: "-")
        if negative { rest = rest.dropFirst() }
        guard let first = rest.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
        if first == UInt8(ascii: "0"), rest.count > 1 { return nil }
        var value = 0
        for byte in rest {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int(byte - UInt8(ascii: "0"))
            // Built as a negative number: Int.min has no positive counterpart.
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowMinus) = times.subtractingReportingOverflow(digit)
            guard !overflowTimes, !overflowMinus else { return nil }
            value = next
        }
        if negative { return value }
        return value == Int.min ? nil : -value
    }

    static func bool(_ bytes: Data.SubSequence) -> Bool? {
        if bytes.elementsEqual("true".utf8) { return true }
        if bytes.elementsEqual("false".utf8) { return false }
        return nil
    }

    /// A JSON string with no escapes; nil when it has one, or is not UTF-8.
    static func string(_ bytes: Data.SubSequence) -> String? {
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return nil }
        let inner = bytes.dropFirst().dropLast()
        // `/` may stand bare inside a JSON string: only quotes, backslashes and control
        // characters need the decoder.
        guard !inner.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return nil }
        return String(validating: inner, as: UTF8.self)
    }
}

extension SmallJSON {
    /// `value` in its stored form, by hand when it can be (``encode(_:)``), else with `encoder`.
    static func encode<Value: Encodable>(_ value: Value, small: Bool, with encoder: @autoclosure () -> JSONEncoder) throws -> Data {
        if small, let data = encode(value) { return data }
        return try encoder().encode(Wrapped(value))
    }

    /// A value from its stored form, by hand when it can be (``decode(_:from:)``), else with
    /// `decoder`.
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, small: Bool, with decoder: @autoclosure () -> JSONDecoder) throws -> Value {
        if small, let value = decode(type, from: data) { return value }
        return try decoder().decode(Wrapped<Value>.self, from: data).value
    }
}
