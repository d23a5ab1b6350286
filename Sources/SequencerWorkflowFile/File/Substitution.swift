/// `${name}` in the strings of a workflow file: a variable of the file's `vars`, or one of a
/// template's substitutions (`${item}`, `${file}`, `${stem}`, `${dir}`, `${ext}`).
///
/// ```swift
/// let substitution = Substitution(values: ["cflags": "-O2", "stem": "main"])
/// try substitution.apply("cc ${cflags} -c ${stem}.c", in: .command)   // "cc -O2 -c main.c"
/// ```
///
/// The environment is left alone: `$HOME` and `${HOME:-/}` are the shell's in a command, and
/// `$SRC` in a path is expanded later from the environment (see ``VariableExpansion``).
/// `$${` writes a `${` the file does not expand.
struct Substitution {
    /// Where a string is used, which decides what an unknown `${name}` is.
    enum Use {
        /// A command, a job name, a need, an `env` value: an unknown `${name}` is an error,
        /// unless it names a variable of the job's environment (the shell expands it), and
        /// `$${` is written as `${`.
        case command
        /// A path (`inputs`, `outputs`, `cwd`, `depfile`): an unknown `${name}` is left for the
        /// environment's expansion, and so is `$$` (but a template's name outside a template is
        /// an error).
        case path
    }

    /// Why a string cannot be expanded, and at which of its Unicode scalars.
    struct Failure: Error, Equatable {
        var message: String
        /// The position of the `$` in the string, in Unicode scalars.
        var offset: Int
    }

    /// The names a template defines for each of its items.
    static let templateNames = ["item", "file", "stem", "dir", "ext"]

    /// The values of the names, by name.
    var values: [String: String]
    /// Variables of the job's environment (the file's and the job's `env`): `${NAME}` in a
    /// command is left for the shell.
    var shellNames: Set<String> = []

    /// `text` with its `${name}`s replaced.
    /// - Throws: ``Failure`` for an unknown name where ``Use`` makes it an error.
    /// - Complexity: O(n) in the length of `text` and of the values.
    func apply(_ text: String, in use: Use) throws(Failure) -> String {
        guard text.utf8.contains(UInt8(ascii: "$")) else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "$", index + 1 < scalars.count else {
                result.append(scalar)
                index += 1
                continue
            }
            if scalars[index + 1] == "$" {
                let escapesBrace = use == .command && index + 2 < scalars.count && scalars[index + 2] == "{"
                result.append(contentsOf: escapesBrace ? ["$", "{"] : ["$", "$"])
                index += escapesBrace ? 3 : 2
                continue
            }
            guard scalars[index + 1] == "{", let (name, end) = Self.name(in: scalars, from: index + 2) else {
                result.append(scalar)
                index += 1
                continue
            }
            if let value = values[name] {
                result.append(contentsOf: value.unicodeScalars)
            } else if (use == .path && !Self.templateNames.contains(name)) || shellNames.contains(name) {
                result.append(contentsOf: scalars[index...end])
            } else {
                throw Failure(message: unknownMessage(name), offset: index)
            }
            index = end + 1
        }
        return String(result)
    }

    /// The name of `${name}` starting at `start` (just past the brace), and the position of its
    /// closing brace; nil when what follows is not a plain name and a brace (`${X:-y}` is the
    /// shell's).
    private static func name(in scalars: [Unicode.Scalar], from start: Int) -> (String, Int)? {
        var end = start
        while end < scalars.count, isNameScalar(scalars[end], first: end == start) { end += 1 }
        guard end > start, end < scalars.count, scalars[end] == "}" else { return nil }
        return (String(String.UnicodeScalarView(scalars[start..<end])), end)
    }

    /// Whether a scalar can be part of a name: a letter or `_`, then also digits.
    static func isNameScalar(_ scalar: Unicode.Scalar, first: Bool) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || (!first && ("0"..."9").contains(scalar))
    }

    /// Whether `name` can be a variable's name.
    static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.enumerated().allSatisfy { isNameScalar($1, first: $0 == 0) }
    }

    private func unknownMessage(_ name: String) -> String {
        if Self.templateNames.contains(name) {
            return "'${\(name)}' is defined only in a template (a job with 'for')"
        }
        let suggestion = didYouMean(name, among: values.keys.sorted())
        return "unknown variable '\(name)'" + (suggestion.isEmpty ? "; declare it under 'vars'" : suggestion)
            + " (for the shell's variable, write $\(name) or $${\(name)})"
    }
}
