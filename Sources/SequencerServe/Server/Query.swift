import Foundation

/// A request's query, as forms send it: `+` is a space, then percent-decoding.
struct Query {
    private var values: [String: String] = [:]

    init(_ query: String?) {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let key = decode(parts[0])
            if values[key] == nil { values[key] = parts.count > 1 ? decode(parts[1]) : "" }
        }
    }

    /// The value of `key`; nil when it is missing or empty.
    subscript(key: String) -> String? {
        guard let value = values[key], !value.isEmpty else { return nil }
        return value
    }
}
