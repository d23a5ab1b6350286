/// A depfile: the Makefile rules a compiler writes with `cc -MD` (or `-MMD`, `-MF FILE`),
/// naming the files a compile read.
///
/// ```
/// build/main.o: src/main.c src/vector.h \
///   src/my\ header.h
/// src/vector.h:
/// ```
///
/// What is read, as ninja's `deps = gcc` reads it: rules of `targets: inputs`; a backslash at
/// the end of a line goes on to the next; `\ ` is a space and `\#` a `#` in a name; `$$` is a
/// `$`; a backslash before anything else is kept (`C:\src`); a `:` that is not followed by a
/// space or the end of the line is part of a name (`C:/src`). The inputs of every rule count
/// (`-MP` adds a rule with no inputs for each header), each once, in order.
public enum Depfile {
    /// Why a depfile cannot be read.
    public struct Malformed: Error, Equatable, CustomStringConvertible {
        /// The line (counting from 1, after joining continued lines) where the problem is.
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// The inputs the rules of `text` name.
    /// - Throws: ``Malformed`` for a line that has names but no `:`, or a rule with no target.
    /// - Complexity: O(n) in the length of `text`.
    public static func inputs(in text: String) throws(Malformed) -> [String] {
        var inputs: [String] = []
        var seen: Set<String> = []
        var lineNumber = 1
        for line in logicalLines(text) {
            defer { lineNumber += line.breaks + 1 }
            let words = self.words(in: line.scalars)
            guard !words.isEmpty else { continue }
            guard let colon = words.firstIndex(where: \.endsTargets) else {
                throw Malformed(line: lineNumber, message: "expected 'TARGET: INPUTS', found no ':'")
            }
            guard colon > 0 || !words[colon].text.isEmpty else {
                throw Malformed(line: lineNumber, message: "a rule with no target before its ':'")
            }
            for word in words[(colon + 1)...] where !word.text.isEmpty && seen.insert(word.text).inserted {
                inputs.append(word.text)
            }
        }
        return inputs
    }

    /// A line with its continuations joined, and how many line breaks were joined.
    private struct Line {
        var scalars: [Unicode.Scalar]
        var breaks: Int
    }

    private static func logicalLines(_ text: String) -> [Line] {
        var lines: [Line] = []
        var current = Line(scalars: [], breaks: 0)
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\", index + 1 < scalars.count, scalars[index + 1] == "\n" || scalars[index + 1] == "\r" {
                // A continuation: `\` then `\n` or `\r\n`.
                index += scalars[index + 1] == "\r" && index + 2 < scalars.count && scalars[index + 2] == "\n" ? 3 : 2
                current.scalars.append(" ")
                current.breaks += 1
                continue
            }
            if scalar == "\n" {
                lines.append(current)
                current = Line(scalars: [], breaks: 0)
            } else if scalar != "\r" {
                current.scalars.append(scalar)
            }
            index += 1
        }
        lines.append(current)
        return lines
    }

    /// A name of a rule, and whether a `:` ended it (it is the last target).
    private struct Word {
        var text: String
        var endsTargets: Bool
    }

    /// The words of a line: names split at unescaped spaces, up to a `#` comment.
    private static func words(in scalars: [Unicode.Scalar]) -> [Word] {
        var words: [Word] = []
        var word = String.UnicodeScalarView()
        var started = false
        func finish(endsTargets: Bool) {
            if started || endsTargets { words.append(Word(text: String(word), endsTargets: endsTargets)) }
            word = String.UnicodeScalarView()
            started = false
        }
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            switch scalar {
            case " ", "\t":
                finish(endsTargets: false)
            case "#" where !started:
                finish(endsTargets: false)
                return words
            case "\\" where next == " " || next == "#" || next == "\t":
                word.append(next ?? scalar)
                started = true
                index += 1
            case "$" where next == "$":
                word.append("$")
                started = true
                index += 1
            case ":" where next == nil || next == " " || next == "\t":
                finish(endsTargets: true)
            default:
                word.append(scalar)
                started = true
            }
            index += 1
        }
        finish(endsTargets: false)
        return words
    }
}
