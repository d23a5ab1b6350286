import Foundation

/// JSON as the output formats print it: sorted keys (so the same value always prints the same
/// text) and slashes left alone (paths and commands stay readable).
package enum JSONText {
    /// The JSON for `value`, pretty printed or on one line.
    ///
    /// - Parameters:
    ///   - value: what to encode.
    ///   - pretty: whether to indent, one value per line.
    /// - Returns: the text; `null` if the value cannot be encoded, which the output formats'
    ///   values (finite numbers, strings) never are.
    package static func encode(_ value: some Encodable, pretty: Bool) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty
            ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    package var fractionalSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole microseconds (rounded toward zero), saturating.
    package var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return whole.addingReportingOverflow(attoseconds / 1_000_000_000_000).partialValue
    }
}
