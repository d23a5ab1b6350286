/// Variables in the paths of a workflow file (`inputs`, `outputs`, `cwd`): `$NAME` and
/// `${NAME}` are replaced by the variable's value, and `$$` by a `$`.
///
/// ```swift
/// try VariableExpansion.expand("$SRC/${NAME}.c", variables: ["SRC": "lib", "NAME": "zstd"])  // "lib/zstd.c"
/// ```
///
/// A name is a letter or `_`, then letters, digits and `_`. Values are used as they are (a
/// `$` in a value is not expanded again).
enum VariableExpansion {
    /// Why a text cannot be expanded.
    struct Failure: Error, Equatable {
        /// What is wrong, for a diagnostic.
        var message: String
    }

    /// Whether `text` has anything to expand.
    static func hasVariables(_ text: String) -> Bool { text.utf8.contains(UInt8(ascii: "$")) }

    /// `text` with its variables replaced.
    /// - Throws: ``Failure`` for a variable that `variables` does not define, or for a `$`
    ///   that starts neither a name, `{NAME}` nor `$`.
    /// - Complexity: O(n) in the length of `text` and of the values.
    static func expand(_ text: String, variables: [String: String]) throws(Failure) -> String {
        guard hasVariables(text) else { return text }
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            if rest.first == "$" {
                result += "$"
                rest = rest.dropFirst()
                continue
            }
            let braced = rest.first == "{"
            if braced { rest = rest.dropFirst() }
            let name = rest.prefix { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
            guard let first = name.first, !first.isNumber else {
                throw Failure(message: braced
                    ? "'${' must be followed by a variable name and '}'; write '$$' for a '$'"
                    : "'$' must be followed by a variable name or '{NAME}'; write '$$' for a '$'")
            }
            rest = rest[name.endIndex...]
            if braced {
                guard rest.first == "}" else {
                    throw Failure(message: "'${\(name)' has no closing '}'")
                }
                rest = rest.dropFirst()
            }
            guard let value = variables[String(name)] else {
                throw Failure(message: "variable '\(name)' is not defined (in the environment or under 'env')")
            }
            result += value
        }
        return result + rest
    }
}
