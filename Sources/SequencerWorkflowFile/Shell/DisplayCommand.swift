/// A shell command the way its process ran it, for showing: `$NAME` and `${NAME}` replaced by
/// their values, so the command can be pasted into a terminal to reproduce a failure.
///
/// ```swift
/// DisplayCommand.text(of: #"$CC $CFLAGS -c '$x.c' "${OUT}""#, environment: ["CC": "cc", "CFLAGS": "-O2", "OUT": "a.o"])
/// // cc -O2 -c '$x.c' "a.o"
/// ```
///
/// Variables are replaced where `/bin/sh` would replace them: not inside single quotes, not
/// after a backslash, not in a comment. A variable that is not set becomes empty, as in `sh`.
/// Everything else stays as written: `$(...)`, backquotes, `$((...))`, `${NAME:-default}` and
/// the other `${...}` forms, `$1`, `$?`, `$$` and the other special parameters. So does a
/// variable the script sets itself (`NAME=value`, `for NAME in`, `read NAME`, `local NAME`,
/// `unset NAME`), whose value where it is used only running the script can tell.
package enum DisplayCommand {
    /// `script` with its variables replaced by their values in `environment`.
    /// - Complexity: O(length of `script` + length of the values).
    package static func text(of script: String, environment: [String: String]) -> String {
        let bytes = Array(script.utf8)
        guard bytes.contains(Byte.dollar) else { return script }
        var scanner = VariableScanner(bytes: bytes)
        scanner.scan()
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count)
        var copied = 0
        for reference in scanner.references {
            text += bytes[copied..<reference.range.lowerBound]
            if scanner.assigned.contains(reference.name) {
                text += bytes[reference.range]
            } else {
                text += (environment[reference.name] ?? "").utf8
            }
            copied = reference.range.upperBound
        }
        text += bytes[copied...]
        return String(decoding: text, as: UTF8.self)
    }
}

private enum Byte {
    static let dollar = UInt8(ascii: "$")
    static let backslash = UInt8(ascii: "\\")
    static let singleQuote = UInt8(ascii: "'")
    static let doubleQuote = UInt8(ascii: "\"")
    static let backquote = UInt8(ascii: "`")
    static let newline = UInt8(ascii: "\n")
}

/// Finds the variables a script uses and the ones it sets, tracking quotes and words.
private struct VariableScanner {
    /// What the words that follow a command word are.
    private enum Arguments {
        case other
        /// The next word is a loop variable (after `for`).
        case loopVariable
        /// Names are set (after `read`, `local`, `unset`).
        case names
    }

    let bytes: [UInt8]
    /// `$NAME` and `${NAME}`, in order.
    private(set) var references: [(name: String, range: Range<Int>)] = []
    /// The variables the script sets.
    private(set) var assigned: Set<String> = []
    private var index = 0
    private var wordStart: Int?
    /// No word but assignments and keywords yet in this command.
    private var atCommandWord = true
    /// Words of `NAME=value` set variables here (at a command's start, or after `export`...).
    private var assigning = false
    private var arguments = Arguments.other

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func scan() {
        var inDoubleQuotes = false
        while index < bytes.count {
            let byte = bytes[index]
            if !inDoubleQuotes, let isOperator = Self.separator(byte) {
                endWord(at: index, endsCommand: isOperator)
                index += 1
                continue
            }
            if wordStart == nil {
                if byte == UInt8(ascii: "#") {
                    index = bytes[index...].firstIndex(of: Byte.newline) ?? bytes.count
                    continue
                }
                wordStart = index
            }
            switch byte {
            case Byte.singleQuote where !inDoubleQuotes:
                index = after(Byte.singleQuote, from: index + 1)
            case Byte.backslash:
                index = min(index + 2, bytes.count)
            case Byte.doubleQuote:
                inDoubleQuotes.toggle()
                index += 1
            case Byte.backquote:
                index = afterEscaped(Byte.backquote, from: index + 1)
            case Byte.dollar:
                dollar()
            default:
                index += 1
            }
        }
        endWord(at: bytes.count, endsCommand: true)
    }

    /// Reads a `$` form at `index` and moves past it.
    private mutating func dollar() {
        let next = index + 1
        guard next < bytes.count else {
            index = next
            return
        }
        let byte = bytes[next]
        if byte == UInt8(ascii: "(") {
            index = afterBalanced(open: byte, close: UInt8(ascii: ")"), from: next + 1)
        } else if byte == UInt8(ascii: "{") {
            let end = afterBalanced(open: byte, close: UInt8(ascii: "}"), from: next + 1)
            if end - 1 > next + 1, bytes[end - 1] == UInt8(ascii: "}"), let name = name(in: next + 1..<end - 1) {
                references.append((name, index..<end))
            }
            index = end
        } else if Self.isNameStart(byte) {
            var end = next + 1
            while end < bytes.count, Self.isNameStart(bytes[end]) || Self.isDigit(bytes[end]) { end += 1 }
            references.append((String(decoding: bytes[next..<end], as: UTF8.self), index..<end))
            index = end
        } else if Self.isDigit(byte) || "?$!@*#-".utf8.contains(byte) {
            index = next + 1
        } else {
            index = next
        }
    }

    /// Ends the word being read, if any, noting what it sets.
    private mutating func endWord(at end: Int, endsCommand: Bool) {
        if let start = wordStart {
            word(start..<end)
            wordStart = nil
        }
        if endsCommand {
            atCommandWord = true
            assigning = false
            arguments = .other
        }
    }

    private mutating func word(_ range: Range<Int>) {
        let equals = bytes[range].firstIndex(of: UInt8(ascii: "="))
        if assigning || atCommandWord, let equals, let name = name(in: range.lowerBound..<equals) {
            assigned.insert(name)
            return
        }
        let text = String(decoding: bytes[range], as: UTF8.self)
        switch arguments {
        case .loopVariable:
            if name(in: range) != nil { assigned.insert(text) }
            arguments = .other
        case .names:
            if name(in: range) != nil { assigned.insert(text) }
        case .other:
            break
        }
        guard atCommandWord else { return }
        switch text {
        case "if", "then", "else", "elif", "while", "until", "do", "!", "{", "time":
            return
        case "for":
            arguments = .loopVariable
        case "read", "unset":
            arguments = .names
        case "local":
            arguments = .names
            assigning = true
        case "export", "readonly", "declare", "typeset":
            assigning = true
        default:
            break
        }
        atCommandWord = false
    }

    /// The name in `range`, if it holds exactly a valid variable name.
    private func name(in range: Range<Int>) -> String? {
        guard let first = range.first, Self.isNameStart(bytes[first]),
              bytes[range].allSatisfy({ Self.isNameStart($0) || Self.isDigit($0) }) else { return nil }
        return String(decoding: bytes[range], as: UTF8.self)
    }

    /// The index after the next `byte` from `start`, or the end.
    private func after(_ byte: UInt8, from start: Int) -> Int {
        (bytes[start...].firstIndex(of: byte) ?? bytes.count - 1) + 1
    }

    /// The index after the `quote` (a backquote or a double quote) that closes text opened
    /// before `start`, skipping backslash escapes, or the end.
    private func afterEscaped(_ quote: UInt8, from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case Byte.backslash: index += 2
            case quote: return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    /// The index after the `close` that balances an `open` before `start`, skipping quoted
    /// text, or the end.
    private func afterBalanced(open: UInt8, close: UInt8, from start: Int) -> Int {
        var depth = 1
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case Byte.backslash:
                index += 2
                continue
            case Byte.singleQuote:
                index = after(Byte.singleQuote, from: index + 1)
                continue
            case Byte.doubleQuote:
                index = afterEscaped(Byte.doubleQuote, from: index + 1)
                continue
            case Byte.backquote:
                index = afterEscaped(Byte.backquote, from: index + 1)
                continue
            case open:
                depth += 1
            case close:
                depth -= 1
                if depth == 0 { return index + 1 }
            default:
                break
            }
            index += 1
        }
        return bytes.count
    }

    /// For a byte that ends a word outside quotes: whether it also ends a command (an
    /// operator or a newline) rather than being a blank. Nil for other bytes.
    private static func separator(_ byte: UInt8) -> Bool? {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"): false
        case Byte.newline, UInt8(ascii: ";"), UInt8(ascii: "&"), UInt8(ascii: "|"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"):
            true
        default: nil
        }
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
