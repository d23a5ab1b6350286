/// A tool's flags, read as glibc's `getopt`/`getopt_long` reads them for ninja's tools: flags
/// may come before, between or after the operands (GNU permutation), several may share one
/// `-` (`-gr`), `--` ends the flags, and a lone `-` is an operand. Long flags (only `inputs`
/// has one, `--help`) may be abbreviated to any prefix.
///
/// None of ninja 1.11's tool flags takes a value.
struct ToolArgumentParser {
    /// What reading the arguments found, in command-line order.
    enum Item: Equatable {
        /// A known flag (its short letter; a long flag is given as the letter it stands for).
        case flag(Character)
        /// An unknown flag, with getopt's complaint (`NAME: invalid option -- 'z'` and a
        /// newline), to print on standard error before the tool's usage. Reading stops there.
        case invalid(complaint: String)
    }

    /// The flags and the operands.
    struct Result: Equatable {
        var items: [Item]
        /// The operands, in their order (after the flags have been taken out).
        var operands: [String]
    }

    /// The short flags the tool knows.
    var flags: Set<Character>
    /// Long flags by name, with the short flag each stands for.
    var longFlags: [String: Character] = [:]

    /// Reads `arguments`; `commandName` starts getopt's complaints.
    func parse(_ arguments: [String], commandName: String) -> Result {
        var items: [Item] = []
        var operands: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                operands += arguments[index...]
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                operands.append(argument)
                continue
            }
            if !longFlags.isEmpty, argument.hasPrefix("--") {
                let item = longFlag(argument.dropFirst(2), commandName: commandName)
                items.append(item)
                if case .invalid = item { break }
                continue
            }
            var stopped = false
            for character in argument.dropFirst() {
                if flags.contains(character) {
                    items.append(.flag(character))
                } else {
                    items.append(.invalid(complaint: "\(commandName): invalid option -- '\(character)'\n"))
                    stopped = true
                    break
                }
            }
            if stopped { break }
        }
        return Result(items: items, operands: operands)
    }

    /// `--NAME` or `--NAME=VALUE`, NAME being a long flag or the prefix of exactly one.
    private func longFlag(_ text: Substring, commandName: String) -> Item {
        let name = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let hasValue = text.contains("=")
        var matches = longFlags.keys.filter { $0 == name }
        if matches.isEmpty { matches = longFlags.keys.filter { $0.hasPrefix(name) }.sorted() }
        guard matches.count == 1, let match = matches.first, let flag = longFlags[match] else {
            if matches.count > 1 {
                let candidates = matches.map { " '--\($0)'" }.joined()
                return .invalid(complaint: "\(commandName): option '--\(name)' is ambiguous; possibilities:\(candidates)\n")
            }
            return .invalid(complaint: "\(commandName): unrecognized option '--\(text)'\n")
        }
        if hasValue {
            return .invalid(complaint: "\(commandName): option '--\(match)' doesn't allow an argument\n")
        }
        return .flag(flag)
    }
}
